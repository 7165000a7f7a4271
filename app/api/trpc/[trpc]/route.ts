import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { isCrossSiteWrite } from '@/server/trpc/csrf';
import { createTrpcContext } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable, isDomainError } from '@/server/domain/errors';
import { statusForCode } from '@/server/domain/errorCodes';
import { log, runWithLogContext } from '@/server/log';
import { requestIdOf, withRequestId } from '@/server/http/requestId';
import { recordRequest, secondsSince } from '@/server/observability/metrics';
import { setSpanAttributes, traceRequest, tracingEnabled } from '@/server/observability/tracing';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * Counted and logged by procedure (`trpc:dashboard.calendar.list`): the route template of
 * docs/operations.md "Metrics". Only the router's own procedure names become labels; a batch
 * is `trpc:(batch)` and anything else `trpc:(unknown)`, so a client cannot mint label values.
 */
const PROCEDURES = new Set(Object.keys(appRouter._def.procedures));
function routeOf(name: string): string {
  if (name.includes(',')) return 'trpc:(batch)';
  return PROCEDURES.has(name) ? `trpc:${name}` : 'trpc:(unknown)';
}

async function handler(req: Request): Promise<Response> {
  const started = process.hrtime.bigint();
  const route = routeOf(new URL(req.url).pathname.slice('/api/trpc/'.length));
  const res = await traced(req, route);
  recordRequest(route, req.method, res.status, secondsSince(started));
  return res;
}

/**
 * The request's span is named by its procedures (`trpc bookings.list`, a batch
 * `trpc bookings.list,owners.get`), read from the path; never the raw path or its input.
 */
function traced(req: Request, route: string): Promise<Response> {
  if (!tracingEnabled()) return identified(req, route);
  const procedures = new URL(req.url).pathname.slice('/api/trpc/'.length);
  const name = /^[A-Za-z0-9_.,]{1,200}$/.test(procedures) ? procedures : 'unknown';
  return traceRequest(req, `trpc ${name}`, '/api/trpc/[trpc]', () => {
    setSpanAttributes({ 'rpc.system': 'trpc', 'rpc.method': name });
    return identified(req, route);
  });
}

/** The answer with its X-Request-Id, and the request's log lines carrying the same id (docs/api.md). */
function identified(req: Request, route: string): Promise<Response> {
  const requestId = requestIdOf(req);
  return runWithLogContext({ request_id: requestId, route, method: req.method }, async () => withRequestId(await answer(req), requestId));
}

async function answer(req: Request): Promise<Response> {
  if (isCrossSiteWrite(req)) {
    return Response.json({ error: { message: 'Cross-site requests are not accepted', code: -32003, data: { code: 'FORBIDDEN', httpStatus: 403 } } }, { status: 403 });
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createTrpcContext({ req, resHeaders }),
    // A lost database primary answers 503 with Retry-After, as on /v1 (docs/operations.md "High availability").
    responseMeta: ({ errors }) => (errors.some((e) => (isDomainError(e.cause) ? e.cause : databaseUnavailable(e.cause))?.code === 'service_unavailable') ? { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } } : {}),
    onError: ({ error, path }) => {
      // A DomainError arrives wrapped as INTERNAL_SERVER_ERROR; the formatter gives it its real status.
      const expected = isDomainError(error.cause) && statusForCode(error.cause.code) < 500;
      if (error.code === 'INTERNAL_SERVER_ERROR' && !expected) log.error('trpc procedure failed', { path, err: error.cause ?? error });
    },
  });
}

export { handler as GET, handler as POST };
