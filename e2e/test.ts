import { test as base, type APIRequestContext, type APIResponse, type Browser, type BrowserContext, type Response } from '@playwright/test';
import { OpenApiValidator, OpenApiViolationError, isDocumentedArea, type Answer, type Violation } from '../tests/helpers/openapiValidator';
import { baseUrls } from './servers';

/**
 * The journeys' `test`: Playwright's, with every JSON answer the service gives under /v1 and
 * /public checked against the OpenAPI document it serves (tests/helpers/openapiValidator.ts;
 * docs/architecture.md "Every answer the tests receive is checked against the document"):
 * - requests of the `request` fixture, of `page.request`/`context.request` and of Node's `fetch`
 *   fail at the call that received a departing answer;
 * - answers the browser receives (the admin console, the public pages) fail the test when it ends.
 * And every page's console is watched (issue 45: no hydration error in any journey): an uncaught
 * error in a page, or a console error other than the browser's note of a 4xx answer (a refusal
 * the journey provokes and reads), fails the test when it ends. A journey that provokes one on
 * purpose says so with `test.use({ consoleErrorsAllowed: [/…/] })`.
 * Every spec imports `test` and `expect` from here, not from '@playwright/test'.
 */
export * from '@playwright/test';

const realFetch = globalThis.fetch;
let served: Promise<OpenApiValidator> | undefined;
function validator(): Promise<OpenApiValidator> {
  served ??= realFetch(`${baseUrls[0]}/v1/openapi.json`)
    .then((r) => r.json())
    .then((doc) => new OpenApiValidator(doc));
  return served;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The path of a URL of one of the service's instances (loopback) in the document's area, else null. */
function documentedPath(url: string): string | null {
  const u = new URL(url);
  return LOOPBACK.has(u.hostname) && isDocumentedArea(u.pathname) ? u.pathname : null;
}

async function violationsOf(method: string, url: string, status: number, contentType: string | null, text: () => Promise<string>, accept?: string | null): Promise<Violation[]> {
  const path = documentedPath(url);
  if (!path) return [];
  let body: unknown;
  const raw = await text().catch(() => '');
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = raw;
  }
  const answer: Answer = { method, path, status, contentType, body, accept };
  return (await validator()).check(answer);
}

/** Browser answers and page errors of the running test, checked when it ends. */
let running: { pending: Promise<Violation[]>[]; pageErrors: string[] } | null = null;

/** Chromium's own line for an answer with an error status: a 4xx is a refusal the journey reads; a 5xx is a fault. */
const CLIENT_ERROR_ANSWER = /^Failed to load resource: the server responded with a status of 4\d\d\b/;

/** A page error worth failing for: any uncaught error, and console errors but the browser's note of a 4xx. */
function pageErrorOf(kind: 'console' | 'uncaught', text: string, url: string): string | null {
  if (kind === 'console' && CLIENT_ERROR_ANSWER.test(text)) return null;
  return `${kind === 'uncaught' ? 'uncaught error' : 'console error'} on ${url || 'a page'}: ${text.split('\n')[0]}`;
}

const wrapped = new WeakSet<object>();
const VERBS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'fetch'] as const;
/** Each request of this context throws at the call when its answer departs from the document. */
function checkRequests(request: APIRequestContext): APIRequestContext {
  if (wrapped.has(request)) return request;
  wrapped.add(request);
  for (const verb of VERBS) {
    const original = request[verb].bind(request) as (url: unknown, options?: { method?: string }) => Promise<APIResponse>;
    (request as unknown as Record<string, unknown>)[verb] = async (url: unknown, options?: { method?: string; headers?: Record<string, string> }) => {
      const res = await original(url, options);
      const method = verb !== 'fetch' ? verb : (options?.method ?? (typeof url === 'object' && url && 'method' in url ? (url as { method(): string }).method() : 'GET'));
      const accept = Object.entries(options?.headers ?? {}).find(([k]) => k.toLowerCase() === 'accept')?.[1];
      const violations = await violationsOf(method.toUpperCase(), res.url(), res.status(), res.headers()['content-type'] ?? null, async () => (await res.body()).toString('utf8'), accept);
      if (violations.length) throw new OpenApiViolationError(violations);
      return res;
    };
  }
  return request;
}

/** The browser's answers in this context are checked when the test ends; its `request` at the call. */
function checkContext(context: BrowserContext): BrowserContext {
  if (wrapped.has(context)) return context;
  wrapped.add(context);
  checkRequests(context.request);
  context.on('console', (msg) => {
    if (!running || msg.type() !== 'error') return;
    const error = pageErrorOf('console', msg.text(), msg.location().url);
    if (error) running.pageErrors.push(error);
  });
  context.on('weberror', (e) => {
    if (!running) return;
    const error = pageErrorOf('uncaught', e.error().message, e.page()?.url() ?? '');
    if (error) running.pageErrors.push(error);
  });
  context.on('response', (res: Response) => {
    if (!running || !documentedPath(res.url())) return;
    const req = res.request();
    const body = async () => (await res.body()).toString('utf8');
    // allHeaders: the Accept the browser's network stack sent (headers() leaves some out)
    const checked = req.allHeaders().then((sent) => violationsOf(req.method(), res.url(), res.status(), res.headers()['content-type'] ?? null, body, sent['accept']));
    running.pending.push(checked.catch(() => []));
  });
  return context;
}

export const test = base.extend<{ openapiAnswers: void; consoleErrorsAllowed: RegExp[] }, { openapiFetch: void }>({
  consoleErrorsAllowed: [[], { option: true }],
  // Node's fetch, as the journeys use it against the instances
  openapiFetch: [
    async ({}, provide) => {
      globalThis.fetch = async (input, init) => {
        const res = await realFetch(input, init);
        const request = input instanceof Request ? input : null;
        const accept = new Headers(init?.headers ?? request?.headers).get('accept');
        const violations = await violationsOf((init?.method ?? request?.method ?? 'GET').toUpperCase(), res.url || String(request?.url ?? input), res.status, res.headers.get('content-type'), () => res.clone().text(), accept);
        if (violations.length) throw new OpenApiViolationError(violations);
        return res;
      };
      await provide();
      globalThis.fetch = realFetch;
    },
    { scope: 'worker', auto: true },
  ],
  // contexts a journey opens itself (a second person, a phone)
  browser: [
    async ({ browser }, provide) => {
      if (!wrapped.has(browser)) {
        wrapped.add(browser);
        const newContext = browser.newContext.bind(browser);
        (browser as { newContext: Browser['newContext'] }).newContext = async (...args) => checkContext(await newContext(...args));
      }
      await provide(browser);
    },
    { scope: 'worker' },
  ],
  context: async ({ context }, provide) => {
    await provide(checkContext(context));
  },
  request: async ({ request }, provide) => {
    await provide(checkRequests(request));
  },
  openapiAnswers: [
    async ({ consoleErrorsAllowed }, provide) => {
      running = { pending: [], pageErrors: [] };
      await provide();
      const violations = (await Promise.all(running.pending)).flat();
      const pageErrors = running.pageErrors.filter((e) => !consoleErrorsAllowed.some((allowed) => allowed.test(e)));
      running = null;
      if (violations.length) throw new OpenApiViolationError(violations);
      if (pageErrors.length) throw new Error(`the pages logged ${pageErrors.length} error(s):\n${[...new Set(pageErrors)].join('\n')}`);
    },
    { auto: true },
  ],
});
