/**
 * A thin typed client of the REST API (clients/typescript/README.md): types
 * generated from /v1/openapi.json by openapi-typescript (schema.d.ts, run
 * `npm run client:generate`), calls made by openapi-fetch, with retries on
 * 429 and 5xx and an Idempotency-Key per logical call (retry.ts), and error
 * answers that carry their `error.code` at the top as `code` too, so a
 * `switch (error.code)` narrows them (errors.ts).
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { CodedPaths } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type { components, operations, paths } from './schema.js';
export type { Coded, CodedPaths, OperationError } from './errors.js';
export { retryAfterMs, retryingFetch, type RetryOptions } from './retry.js';

export type SchedulerClientOptions = {
  /** e.g. http://localhost:3000 (the API's paths start with /v1). */
  baseUrl: string;
  /** The agent's `ak_` key, sent as a bearer token. */
  apiKey: string;
  /** Headers sent with every call (a call's own `headers` add to them; `authorization` is the key's). */
  headers?: Record<string, string>;
  /** The fetch to call (default globalThis.fetch). */
  fetch?: (req: Request) => Promise<Response>;
  retry?: RetryOptions;
};

/** openapi-fetch's client over the API's paths, error bodies with their code at the top (`CodedPaths`). */
export type SchedulerClient = Client<CodedPaths>;

export function createSchedulerClient(opts: SchedulerClientOptions): SchedulerClient {
  const base = opts.fetch ?? ((req: Request) => globalThis.fetch(req));
  const client = createClient<CodedPaths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { ...opts.headers, authorization: `Bearer ${opts.apiKey}` },
    fetch: retryingFetch(base, opts.retry),
  });
  client.use(codeOnTop);
  return client;
}

/**
 * Copies `error.code` of an error body to its top as `code` (TypeScript narrows a union on a
 * property of the value itself, not on a nested one such as `error.error.code`).
 */
const codeOnTop: Middleware = {
  async onResponse({ response }) {
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return undefined;
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
    const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
    if (typeof code !== 'string' || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const headers = new Headers(response.headers);
    headers.delete('content-length'); // the body grew by `code`
    return new Response(JSON.stringify({ ...body, code }), { status: response.status, statusText: response.statusText, headers });
  },
};
