import { initTRPC, TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { databaseUnavailable, isDomainError, type DomainError } from '@/server/domain/errors';
import { statusForCode, type DomainErrorCode } from '@/server/domain/errorCodes';

import type { OwnerSession } from '@/server/auth/ownerSession';
import type { OwnerActor } from '@/server/domain/adminAudit';
import { getDb, type Db } from '@/server/db';


/**
 * Per-request context: the request, the signed-in owner (if any), the
 * database and the clock (procedures take both from here, never from getDb()
 * or `new Date()`, so tests can hand in a fixed clock), and the response
 * headers (absent for server-side callers), where a procedure may set a cookie.
 */
export type TrpcContext = { req: Request; headers: Headers; owner: OwnerSession | null; db: Db; now: () => Date; resHeaders?: Headers };

export async function createTrpcContext(opts: { req: Request; resHeaders?: Headers }): Promise<TrpcContext> {
  const { ownerSessionFromRequest } = await import('@/server/auth/session');
  return { req: opts.req, headers: opts.req.headers, owner: await ownerSessionFromRequest(opts.req), db: await getDb(), now: () => new Date(), resHeaders: opts.resHeaders };
}

/**
 * tRPC's own error key for an HTTP status, derived from tRPC's table (so
 * the catalogue in server/domain/errorCodes.ts stays the only table of ours): the first key
 * whose status is `status`, else BAD_REQUEST for other 4xx (e.g. 410) and
 * INTERNAL_SERVER_ERROR for the rest.
 */
const KEY_BY_STATUS = new Map<number, TRPC_ERROR_CODE_KEY>();
for (const key of Object.keys(TRPC_ERROR_CODES_BY_KEY) as TRPC_ERROR_CODE_KEY[]) {
  if (key === 'PARSE_ERROR') continue; // shares 400 with BAD_REQUEST
  const status = getHTTPStatusCodeFromError(new TRPCError({ code: key }));
  if (!KEY_BY_STATUS.has(status)) KEY_BY_STATUS.set(status, key);
}
function trpcKeyForStatus(status: number): TRPC_ERROR_CODE_KEY {
  return KEY_BY_STATUS.get(status) ?? (status >= 400 && status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
}

/** What a DomainError adds to `error.data` (the same code and details the REST envelope carries). */
type DomainErrorData = { code: DomainErrorCode; message: string; reason?: string; details?: unknown; extra?: Record<string, unknown> };

const t = initTRPC.context<TrpcContext>().create({
  // Plain JSON (no transformer): dates travel as ISO strings, as on /v1.
  errorFormatter({ shape, error }) {
    // A lost database primary (a failover) is service_unavailable, 503, as on /v1 (docs/operations.md "High availability").
    const cause: DomainError | null = isDomainError(error.cause) ? error.cause : databaseUnavailable(error.cause);
    if (cause) {
      // A DomainError thrown in a procedure answers with the status the REST wrapper would use.
      const httpStatus = statusForCode(cause.code);
      const key = trpcKeyForStatus(httpStatus);
      const domain: DomainErrorData = { code: cause.code, message: cause.message };
      if (cause.reason !== undefined) domain.reason = cause.reason;
      if (cause.details !== undefined) domain.details = cause.details;
      // Failing fields keep the domain's names here (no request paths on tRPC).
      if (cause.fields?.length) domain.details = { ...(typeof cause.details === 'object' && cause.details !== null ? cause.details : {}), fields: cause.fields.map((f) => ({ path: f.field, message: f.message })) };
      if (cause.extra !== undefined) domain.extra = cause.extra; // alternatives, next_available, ...
      // A fault of ours says nothing of its internals; an outage says so, and when to retry.
      const told = httpStatus < 500 || cause.code === 'service_unavailable';
      return {
        ...shape,
        message: told ? cause.message : 'Internal server error',
        code: TRPC_ERROR_CODES_BY_KEY[key],
        data: { ...shape.data, code: key, httpStatus, stack: undefined, domain: told ? domain : null },
      };
    }
    if (shape.data.httpStatus >= 500) {
      // Unexpected faults: no internals to the browser (they are logged by the route's onError).
      return { ...shape, message: 'Internal server error', data: { ...shape.data, stack: undefined, domain: null } };
    }
    return { ...shape, data: { ...shape.data, domain: null as DomainErrorData | null } };
  },
});

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

/**
 * Procedures for a signed-in owner (`ctx.owner`); anyone else gets UNAUTHORIZED.
 * `ctx.actor` is that owner as the actor the domain records in the audit log
 * (docs/reliability.md, "Audit actors"): every change made in the dashboard names who made it.
 */
export const ownerProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.owner) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in to the dashboard first' });
  const actor: OwnerActor = { kind: 'owner', ownerId: ctx.owner.ownerId, customerId: ctx.owner.customerId, email: ctx.owner.email };
  return next({ ctx: { ...ctx, owner: ctx.owner, actor } });
});

/** Procedures for an owner with role admin (meeting classes, agents, keys, public scheduling); `ctx.actor` is that owner. */
export const adminProcedure = ownerProcedure.use(({ ctx, next }) => {
  if (ctx.owner.role !== 'admin') throw new TRPCError({ code: 'FORBIDDEN', message: 'Only an admin owner can do this' });
  return next({ ctx });
});
