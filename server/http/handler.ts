import { getDb } from '@/server/db';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { DomainError } from '@/server/domain/errors';
import type { NotificationItem } from '@/server/domain/notificationService';
import { requestIdOf } from './requestId';
import { getConfig } from '@/server/config';
import { log, runWithLogContext, type LogContext } from '@/server/log';
import { recordRequest, secondsSince } from '@/server/observability/metrics';
import { errorBody, jsonResponse, statusOf, toDomainError } from './envelope';
import { HTTP_METHODS, type AnyOperation, type HttpMethod } from './operation';
import { applyRateLimits, rateLimited, setRateLimitHeaders } from './limits';
import { clientIpOf } from '@/server/request';
import { setSpanAttributes, traceRequest, tracingEnabled } from '@/server/observability/tracing';
import { bearerToken, drain } from './call';
import { answerOperation } from './pipeline';

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = ((req: Request, ctx: RouteContext) => Promise<Response>) & { operation?: AnyOperation };

/**
 * Bind operations to a route file. Every method is exported, so a method the
 * path does not support answers 405 in our envelope (not Next's empty body):
 *   export const { GET, POST, PUT, PATCH, DELETE } = routes({ POST: createAgent });
 */
export function routes(ops: Partial<Record<HttpMethod, AnyOperation>>, opts: { alsoServed?: HttpMethod[] } = {}): Record<HttpMethod, RouteHandler> {
  // `alsoServed`: methods the route file answers itself (e.g. an HTML page), listed in Allow.
  const allowed = HTTP_METHODS.filter((m) => ops[m] || opts.alsoServed?.includes(m));
  const out = {} as Record<HttpMethod, RouteHandler>;
  for (const method of HTTP_METHODS) {
    const op = ops[method];
    if (op) {
      const h: RouteHandler = (req, ctx) => (tracingEnabled() ? traced(req, op.path, () => runOperation(op, req, ctx)) : runOperation(op, req, ctx));
      h.operation = op;
      out[method] = h;
    } else {
      const route = Object.values(ops)[0]?.path;
      out[method] = (req) => {
        const run = () => transportError(req, route ?? '(unknown)', new DomainError('method_not_allowed', `${req.method} is not supported on this path`), { allow: allowed.join(', ') });
        return tracingEnabled() && route ? traced(req, route, run) : run();
      };
    }
  }
  return out;
}

/** Handlers for a catch-all route: every method answers 404 in the envelope. */
export function notFoundRoutes(): Record<HttpMethod, RouteHandler> {
  const h: RouteHandler = (req) => {
    const run = () => transportError(req, '(unmatched)', new DomainError('not_found', 'No such endpoint'));
    // Named by the catch-all, never by the path asked for (it may carry anything).
    return tracingEnabled() ? traced(req, new URL(req.url).pathname.startsWith('/public/') ? '/public/*' : '/v1/*', run) : run();
  };
  return Object.fromEntries(HTTP_METHODS.map((m) => [m, h])) as Record<HttpMethod, RouteHandler>;
}

/**
 * 404 (unknown path) and 405 (unsupported method) in the envelope, counted
 * against the global per-IP limit like any other request. An agent that
 * presented a valid key still gets its notification queue drained.
 */
async function transportError(req: Request, route: string, err: DomainError, extraHeaders: Record<string, string> = {}): Promise<Response> {
  const started = process.hrtime.bigint();
  const headers = baseHeaders(req);
  const ctx: LogContext = { request_id: headers.get('x-request-id')!, route, method: req.method };
  const res = await runWithLogContext(ctx, () => answerTransportError(req, err, headers, extraHeaders));
  recordRequest(route, req.method, res.status, secondsSince(started));
  return res;
}

async function answerTransportError(req: Request, err: DomainError, headers: Headers, extraHeaders: Record<string, string>): Promise<Response> {
  for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
  try {
    const limit = await applyRateLimits({ kind: 'ip', clientIp: clientIpOf(req, getConfig().trustProxy) });
    setRateLimitHeaders(headers, limit);
    if (!limit.success) return jsonResponse(429, { ...errorBody(rateLimited()), pending_notifications: [] }, headers);
  } catch (thrown) {
    log.error('request failed', { err: thrown });
    const failed = toDomainError(thrown);
    if (typeof failed.extra?.retry_after_seconds === 'number') headers.set('retry-after', String(failed.extra.retry_after_seconds));
    return jsonResponse(statusOf(failed), { ...errorBody(failed), pending_notifications: [] }, headers);
  }
  let pending: NotificationItem[] = [];
  const bearer = bearerToken(req);
  if (bearer?.startsWith('ak_')) {
    try {
      const db = await getDb();
      pending = await drain(db, await authenticateApiKey(db, bearer, new Date()));
    } catch {
      // an invalid key changes nothing here: the path or method is what is wrong
    }
  }
  setSpanAttributes({ 'error.code': err.code, reason: err.code });
  return jsonResponse(statusOf(err), { ...errorBody(err), pending_notifications: pending }, headers);
}

/** X-Request-Id: the client's when well-formed, else the trace id when tracing (docs/operations.md "Traces"), else a new id. */
function baseHeaders(req: Request): Headers {
  return new Headers({
    'x-request-id': requestIdOf(req),
    'cache-control': 'no-store',
  });
}

/**
 * The request's span (server/observability/tracing.ts traceRequest), named `<METHOD> <route
 * template>` (`POST /v1/bookings`, `GET /public/booking-proposals/{token}`): never the path
 * itself, which may carry tokens. Its attributes: the route, the status, the request id
 * (linking the answer's X-Request-Id to the trace), the outcome (accepted, refused, error)
 * and the reason code of a refusal; runOperation adds the customer and agent.
 */
function traced(req: Request, route: string, run: () => Promise<Response>): Promise<Response> {
  return traceRequest(req, `${req.method} ${route}`, route, run);
}

/**
 * The request path of every /v1 and /public operation: the request id, then the wrapper's
 * steps (server/http/pipeline.ts answerOperation), timed, counted and logged per route.
 */
async function runOperation(op: AnyOperation, req: Request, routeCtx: RouteContext): Promise<Response> {
  const started = process.hrtime.bigint();
  const headers = baseHeaders(req);
  // Every line logged while answering carries the request id and the route template (never the raw path).
  const ctx: LogContext = { request_id: headers.get('x-request-id')!, route: op.path, method: op.method };
  const res = await runWithLogContext(ctx, () => answerOperation(op, req, routeCtx.params, headers));
  const seconds = secondsSince(started);
  recordRequest(op.path, op.method, res.status, seconds);
  if (res.status >= 500 || seconds >= SLOW_REQUEST_SECONDS) log.warn('request answered', { ...ctx, status: res.status, duration_ms: Math.round(seconds * 1000) });
  return res;
}

/** Requests slower than this are logged (warn) with their duration; the histogram has every one. */
const SLOW_REQUEST_SECONDS = 2;
