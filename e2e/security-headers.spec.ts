import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, test, type APIRequestContext, type APIResponse, type BrowserContext, type Page } from './test';
import { dashboardOwner, ownerSignedIn, publicLink, type PublicLink } from './publicFixtures';
import { baseUrls, PROJECT_ROOT } from './servers';

/**
 * The security headers of docs/reliability.md "Headers", over HTTP against the
 * production build: every kind of HTML answer carries a Content-Security-Policy
 * (frame-ancestors 'none', object-src 'none', base-uri, a script policy without
 * inline script or eval), X-Frame-Options, nosniff and a Referrer-Policy; every
 * JSON answer carries nosniff. In Chromium: a script the server did not render
 * with the request's nonce does not run, and a page on another origin cannot
 * frame the dashboard.
 */
const base = baseUrls[0];

type Csp = Record<string, string[]>;
function parseCsp(value: string | undefined): Csp {
  const out: Csp = {};
  for (const part of (value ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out[name.toLowerCase()] = sources;
  }
  return out;
}
/** The sources that apply to `directive` (its own, else default-src's). */
const effective = (csp: Csp, directive: string) => csp[directive] ?? csp['default-src'] ?? [];

/**
 * Checks an HTML answer's headers; answers the nonce of its policy (null for a policy without one).
 * `framable`: a booking or status page, which this origin (and the customer's verified domains,
 * none here; e2e/embed.spec.ts) may frame (docs/public-scheduling.md "Embedding").
 */
async function expectPageHeaders(res: APIResponse, what: string, status = 200, framable = false): Promise<string | null> {
  const h = res.headers();
  expect(res.status(), `${what}: status`).toBe(status);
  expect(h['content-type'], `${what}: content-type`).toContain('text/html');
  const csp = parseCsp(h['content-security-policy']);
  expect(h['content-security-policy'], `${what}: Content-Security-Policy`).toBeTruthy();
  expect(csp['frame-ancestors'], `${what}: frame-ancestors`).toEqual(framable ? ["'self'"] : ["'none'"]);
  expect(effective(csp, 'object-src'), `${what}: object-src`).toEqual(["'none'"]);
  expect(["'self'", "'none'"], `${what}: base-uri`).toContain((csp['base-uri'] ?? []).join(' '));
  const script = effective(csp, 'script-src');
  expect(script.length, `${what}: a script policy`).toBeGreaterThan(0);
  expect(script, `${what}: inline script allowed`).not.toContain("'unsafe-inline'");
  expect(script, `${what}: eval allowed in production`).not.toContain("'unsafe-eval'");
  expect(script, `${what}: any host allowed`).not.toContain('*');
  expect(h['x-frame-options'], `${what}: X-Frame-Options`).toBe(framable ? 'SAMEORIGIN' : 'DENY');
  expect(h['x-content-type-options'], `${what}: nosniff`).toBe('nosniff');
  expect(h['referrer-policy'], `${what}: Referrer-Policy`).toMatch(/^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/);
  const nonce = script.map((s) => /^'nonce-(.+)'$/.exec(s)?.[1]).find(Boolean) ?? null;
  if (nonce) {
    // every script the page was rendered with carries it (else the page would not hydrate)
    const html = await res.text();
    const tags = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(tags.length, `${what}: scripts`).toBeGreaterThan(0);
    for (const tag of tags) expect(tag, `${what}: a script without the nonce`).toContain(`nonce="${nonce}"`);
  }
  return nonce;
}

function expectJsonHeaders(res: APIResponse, what: string, status: number): void {
  expect(res.status(), `${what}: status`).toBe(status);
  expect(res.headers()['content-type'], `${what}: content-type`).toMatch(/json/);
  expect(res.headers()['x-content-type-options'], `${what}: nosniff`).toBe('nosniff');
}

/** Every dashboard page, found on disk (a new page is checked without editing this file); dynamic segments get an unknown id. */
function dashboardPaths(): string[] {
  const root = path.join(PROJECT_ROOT, 'app', '(dashboard)');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name === 'page.tsx') {
        const rel = path.relative(root, dir).split(path.sep).filter((s) => !/^\(.*\)$/.test(s));
        out.push(`/${rel.map((s) => (s.startsWith('[') ? randomUUID() : s)).join('/')}`);
      }
    }
  };
  walk(root);
  return out.sort();
}

let link: PublicLink;
let statusUrl: string;
let signedIn: BrowserContext;

test.beforeAll(async ({ browser, request }) => {
  test.setTimeout(180_000);
  const owner = await dashboardOwner(request, 'headers');
  link = await publicLink(request, 'headers', owner);
  const times = await (await request.get(`${base}/public/schedules/${link.alias}/meeting-types/${link.slug}/suggested-times?duration_minutes=30`)).json();
  const submitted = await request.post(`${base}/public/schedules/${link.alias}/booking-proposals`, {
    data: { requester_contact: { email: `hdr-${randomUUID().slice(0, 8)}@e2e.example`, name: 'Rhea' }, attendees: [], public_meeting_type: link.slug, duration_minutes: 30, requested_window: times.suggested_times[0] },
  });
  expect(submitted.status(), await submitted.text()).toBe(201);
  statusUrl = (await submitted.json()).status_url;
  signedIn = await ownerSignedIn(browser, owner.ownerEmail);
});
test.afterAll(async () => {
  await signedIn?.close();
});

test('every kind of HTML answer carries the policy, X-Frame-Options, nosniff and Referrer-Policy; every JSON answer nosniff', async ({ request }) => {
  test.setTimeout(240_000);
  const html = (p: string, req: APIRequestContext = request, follow = false) => req.get(`${base}${p}`, { headers: { accept: 'text/html' }, maxRedirects: follow ? 5 : 0 });
  const nonces: string[] = [];
  // dashboard pages follow redirects: admin pages send a member owner (the journey's) to their schedule
  const page = async (p: string, what: string, status = 200, req?: APIRequestContext, framable = false) => {
    const nonce = await expectPageHeaders(await html(p, req, !!req), what, status, framable);
    if (nonce) nonces.push(nonce);
    return nonce;
  };

  // Pages rendered by Next.js: a nonce policy each
  expect(await page('/', 'landing page')).toBeTruthy();
  expect(await page('/signin', 'sign-in page')).toBeTruthy();
  await page('/signin/check-email', 'check-email page');
  // the booking and status pages may be framed by this origin (and the customer's verified domains: none here)
  await page(`/${link.alias}`, 'public link page', 200, undefined, true);
  await page(`/${link.alias}/${link.slug}`, 'meeting type page', 200, undefined, true);
  await page(new URL(statusUrl).pathname, 'status page (status_url in a browser)', 200, undefined, true);
  await page(`/${link.alias}-missing`, 'public not-found page', 404);
  await page('/no/such/page/here', 'not-found page', 404);
  const dashboard = dashboardPaths();
  expect(dashboard).toContain('/dashboard');
  expect(dashboard.length).toBeGreaterThan(8);
  for (const p of dashboard) {
    // an unknown id: the dashboard's not-found page; but an admin page sends a member owner (the
    // journey's) to their schedule before it looks at the id, and the redirect is followed
    const status = /[0-9a-f]{8}-/.test(p) && !p.startsWith('/dashboard/admin/') ? 404 : 200;
    await page(p, `dashboard ${p}`, status, signedIn.request);
  }
  // signed out, the dashboard redirects to sign-in; the redirect carries the headers too
  const redirect = await html('/dashboard/calendar');
  expect(redirect.status()).toBe(307);
  expect(redirect.headers()['x-content-type-options']).toBe('nosniff');
  // a fresh nonce per answer
  expect(new Set(nonces).size).toBe(nonces.length);

  // HTML written by route handlers: a policy of their own, no inline script at all for the API reference
  expect(await expectPageHeaders(await html('/docs/api'), 'API reference')).toBeNull();
  expect(parseCsp((await html('/docs/api')).headers()['content-security-policy'])['script-src']).toEqual(["'self'"]);
  await expectPageHeaders(await html('/public/contact-verifications/cv_not_a_token/confirm'), 'contact verification page', 404);

  // JSON answers
  expectJsonHeaders(await request.get(`${base}/v1/openapi.json`), '/v1/openapi.json', 200);
  expectJsonHeaders(await request.get(`${base}/v1/agents/me`), '/v1 without a key', 401);
  expectJsonHeaders(await request.get(`${base}/v1/agents/me`, { headers: { authorization: `Bearer ${link.key}` } }), '/v1 with a key', 200);
  expectJsonHeaders(await request.get(`${base}/v1/no-such-thing`), '/v1 unknown path', 404);
  expectJsonHeaders(await request.get(`${base}/public/schedules/${link.alias}`), '/public', 200);
  expectJsonHeaders(await request.get(statusUrl, { headers: { accept: 'application/json' } }), 'status_url as JSON', 200);
  expectJsonHeaders(await request.get(`${base}/api/health`), '/api/health', 200);
  expectJsonHeaders(await request.get(`${base}/api/trpc/session.me`), 'tRPC signed out', 401);
  expectJsonHeaders(await signedIn.request.get(`${base}/api/trpc/session.me`), 'tRPC signed in', 200);
  expectJsonHeaders(await request.get(`${base}/mcp`), '/mcp GET', 405);
  expectJsonHeaders(await request.post(`${base}/mcp`, { data: {}, headers: { accept: 'application/json, text/event-stream' } }), '/mcp without a key', 401);
  const mcp = await request.post(`${base}/mcp`, {
    headers: { authorization: `Bearer ${link.key}`, accept: 'application/json, text/event-stream' },
    data: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
  expectJsonHeaders(mcp, '/mcp tools/list', 200);
  // static files too
  expect((await request.get(`${base}/docs/api/assets/init.js`)).headers()['x-content-type-options']).toBe('nosniff');
});

/** Records securitypolicyviolation events from the first moment of each document (Playwright's init scripts are not subject to the page's policy). */
async function recordViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.effectiveDirective} ${e.blockedURI || 'inline'}`));
  });
}

/**
 * On a real page: its own scripts ran; an inline script and an inline event handler injected
 * into its HTML (as a stored XSS would put them there; the server's answer is passed through
 * with its own headers, the policy included) did not; a script with the page's nonce would.
 */
async function expectInjectedScriptBlocked(page: Page, url: string, ready: () => Promise<void>): Promise<void> {
  const injected = '<script>window.__injected = "script ran"</script><img alt="" src="data:," onerror="window.__handler = \'handler ran\'">';
  await page.route(url, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    expect(response.headers()['content-security-policy'], `${url}: the policy`).toMatch(/frame-ancestors '(none|self)'/);
    await route.fulfill({ response, body: html.replace('<body', `${injected}<body`) });
  });
  await page.goto(url);
  await ready();
  await page.unroute(url);
  // the page's own (nonced) scripts ran: Next.js hydrated it
  expect(await page.evaluate(() => typeof (window as unknown as { next?: unknown }).next)).toBe('object');
  await expect.poll(() => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations.length)).toBeGreaterThanOrEqual(2);
  const state = await page.evaluate(() => {
    const w = window as unknown as { __injected?: string; __handler?: string; __violations: string[] };
    return { injected: w.__injected ?? null, handler: w.__handler ?? null, violations: w.__violations };
  });
  expect(state.injected, `${url}: injected inline script`).toBeNull();
  expect(state.handler, `${url}: inline event handler`).toBeNull();
  expect(state.violations).toEqual(expect.arrayContaining(['script-src-elem inline', 'script-src-attr inline']));

  // control: the same script with the page's nonce runs, so "did not run" above is the policy's doing
  const ran = await page.evaluate(() => {
    const nonce = (document.querySelector('script[nonce]') as HTMLScriptElement | null)?.nonce;
    const s = document.createElement('script');
    if (nonce) s.nonce = nonce;
    s.textContent = 'window.__nonced = "ran"';
    document.body.append(s);
    return (window as unknown as { __nonced?: string }).__nonced ?? null;
  });
  expect(ran, `${url}: a script with the nonce`).toBe('ran');
}

test.describe('the browser refuses what the policy forbids, and says so in the console', () => {
  // The refusals below are what these tests provoke: the browser logs each one (e2e/test.ts).
  test.use({ consoleErrorsAllowed: [/Content Security Policy/] });

  test('an injected inline script does not run on the public pages, the sign-in page or the dashboard', async ({ page }) => {
    test.setTimeout(120_000);
    await recordViolations(page);
    await expectInjectedScriptBlocked(page, `${base}/${link.alias}/${link.slug}`, () => expect(page.getByRole('heading', { level: 1 })).toBeVisible());
    await expectInjectedScriptBlocked(page, `${base}/signin`, () => expect(page.getByLabel('Email', { exact: true }).first()).toBeVisible());
    await expectInjectedScriptBlocked(page, `${base}/`, () => expect(page.getByRole('heading', { level: 1, name: 'Agent Scheduler' })).toBeVisible());

    const dash = await signedIn.newPage();
    await recordViolations(dash);
    await expectInjectedScriptBlocked(dash, `${base}/dashboard`, () => expect(dash.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible());
    await dash.close();
  });

  test('a page on another origin cannot frame the dashboard or a booking page', async () => {
    test.setTimeout(120_000);
    // A loopback page on another port (another origin) that frames whatever `?src=` names.
    const framer = http.createServer((req, res) => {
      const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>framer</title><iframe id="f" title="framed" src="${src.replace(/"/g, '&quot;')}" width="800" height="600"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    const framerOrigin = `http://127.0.0.1:${(framer.address() as AddressInfo).port}`;
    try {
      const page = await signedIn.newPage();
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/frame-ancestors|X-Frame-Options/i.test(m.text())) refused.push(m.text());
      });
      const framed = async (target: string) => {
        const served = page.waitForResponse((r) => r.url() === target);
        await page.goto(`${framerOrigin}/?src=${encodeURIComponent(target)}`);
        expect((await served).status(), `${target} was served`).toBe(200);
        await page.waitForTimeout(500);
        const frame = page.frames().find((f) => f !== page.mainFrame());
        return { url: frame?.url() ?? '', text: frame ? await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '') : '' };
      };

      // control: an answer without frame-ancestors loads in the frame, so the harness can tell
      const control = await framed(`${base}/v1/openapi.json`);
      expect(control.url).toBe(`${base}/v1/openapi.json`);
      expect(control.text).toContain('openapi');

      for (const target of [`${base}/dashboard`, `${base}/${link.alias}/${link.slug}`]) {
        const before = refused.length;
        const got = await framed(target);
        expect(got.url, `${target} rendered in a cross-origin frame`).not.toBe(target);
        expect(got.text).not.toMatch(/Inbox|Intro call/);
        expect(refused.length, `${target}: the browser names the refusal`).toBeGreaterThan(before);
      }
      await page.close();
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });
});
