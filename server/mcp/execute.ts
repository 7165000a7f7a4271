import { randomUUID } from 'node:crypto';
import { routes } from '@/server/http/handler';
import { isMutating, type AnyOperation } from '@/server/http/operation';
import { splitArguments } from './tools';

/** What a tool call runs as: the agent's bearer key and the client address the transport saw. */
export type CallerContext = {
  bearer: string | null;
  /** Headers of the transport request the wrapper reads (client address, addressed origin); none on stdio. */
  forwardHeaders?: Headers;
  /** The MCP request's id (docs/api.md): each tool call's REST request carries it; a new one on stdio. */
  requestId?: string;
};

export type ToolOutcome = { ok: boolean; status: number; body: Record<string, unknown> };

const INTERNAL_ORIGIN = 'http://mcp.internal';
const FORWARDED = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'host'];
const handlers = new Map<AnyOperation, ReturnType<typeof routes>[keyof ReturnType<typeof routes>]>();

/**
 * Runs a REST operation for a tool call through the REST wrapper itself
 * (server/http/handler.ts): a Request with the agent's bearer key and an
 * Idempotency-Key (the caller's, or one generated per tool call), so
 * authentication, rate limits, permission, validation, owner scope,
 * idempotency and audit are those of the REST endpoint, byte for byte.
 */
export async function executeOperation(op: AnyOperation, args: Record<string, unknown>, caller: CallerContext): Promise<ToolOutcome> {
  const { params, query, body, idempotencyKey } = splitArguments(op, args);
  let path = op.path;
  for (const [k, v] of Object.entries(params)) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const qs = query.toString();
  const headers = new Headers({ 'x-request-id': caller.requestId ?? randomUUID() });
  if (caller.bearer) headers.set('authorization', `Bearer ${caller.bearer}`);
  for (const name of FORWARDED) {
    const v = caller.forwardHeaders?.get(name);
    if (v) headers.set(name, v);
  }
  if (isMutating(op.method) && op.idempotency !== false) headers.set('idempotency-key', idempotencyKey ?? `mcp-${randomUUID()}`);
  if (body !== undefined) headers.set('content-type', 'application/json');
  const req = new Request(`${INTERNAL_ORIGIN}${path}${qs ? `?${qs}` : ''}`, {
    method: op.method,
    headers,
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  let handler = handlers.get(op);
  if (!handler) handlers.set(op, (handler = routes({ [op.method]: op })[op.method]));
  const res = await handler(req, { params: Promise.resolve(params) });
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  const retryAfter = res.headers.get('retry-after');
  const out = res.status >= 400 && retryAfter ? withRetryAfter(parsed, Number(retryAfter)) : parsed;
  return { ok: res.status < 400, status: res.status, body: out };
}

/**
 * A tool result carries no HTTP headers: the wait a REST answer gives in
 * Retry-After becomes `retry_after_seconds`, and a message that points at the
 * header points at that field instead.
 */
export function withRetryAfter(body: Record<string, unknown>, seconds: number): Record<string, unknown> {
  const error = body.error as { message?: unknown } | undefined;
  const message =
    typeof error?.message === 'string' && error.message.includes('Retry-After')
      ? error.message.replaceAll('Retry-After', `retry_after_seconds (${seconds})`)
      : undefined;
  return { ...body, ...(message ? { error: { ...error, message } } : {}), retry_after_seconds: seconds };
}
