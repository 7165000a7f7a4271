/**
 * A thin typed client of the REST API (clients/typescript/README.md): types
 * generated from /v1/openapi.json by openapi-typescript (schema.d.ts, run
 * `npm run client:generate`), calls made by openapi-fetch, with retries on
 * 429 and 5xx and an Idempotency-Key per logical call (retry.ts).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';
import { retryingFetch, type RetryOptions } from './retry';

export type { components, operations, paths } from './schema';
export { retryAfterMs, retryingFetch, type RetryOptions } from './retry';

export type SchedulerClientOptions = {
  /** e.g. http://localhost:3000 (the API's paths start with /v1). */
  baseUrl: string;
  /** The agent's `ak_` key, sent as a bearer token. */
  apiKey: string;
  /** The fetch to call (default globalThis.fetch). */
  fetch?: (req: Request) => Promise<Response>;
  retry?: RetryOptions;
};

export type SchedulerClient = Client<paths>;

export function createSchedulerClient(opts: SchedulerClientOptions): SchedulerClient {
  const base = opts.fetch ?? ((req: Request) => globalThis.fetch(req));
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${opts.apiKey}` },
    fetch: retryingFetch(base, opts.retry),
  });
}

/**
 * A refusal as a union discriminated on its code: each error body of the document is one
 * schema per `error.code` (`Error_<code>`), so `{ code, body }` narrows in a `switch (e.code)`
 * (TypeScript does not narrow a union by the nested `error.code`), and `body` is that code's
 * own envelope: `alternatives`, `conflicts`, `next_available`, ... where the code has them.
 */
export type CodedError<E> = E extends { error: { code: infer C } } ? (C extends string ? { code: C; body: E } : never) : never;

/** `error` of an openapi-fetch answer as a CodedError (undefined when the call succeeded). */
export function codedError<E extends { error: { code: string } }>(error: E | undefined): CodedError<E> | undefined {
  return error === undefined ? undefined : ({ code: error.error.code, body: error } as CodedError<E>);
}
