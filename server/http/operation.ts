import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { AgentActor, PermissionRequirement } from '@/server/domain/access';
import type { ClaimCall } from '@/server/domain/claims';
import type { ErrorCode, PermissionDeniedCode } from '@/server/domain/errorCodes';
import type { RateLimitName } from './limits';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export type AuthMode = 'api_key' | 'public';

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

type OperationInput<B, Q, P> = { body: Infer<B>; query: Infer<Q>; params: Infer<P> };

type HandlerContext<B, Q, P, A extends AuthMode> = OperationInput<B, Q, P> & {
  req: Request;
  db: Db;
  now: Date;
  requestId: string;
  /** The calling agent (API-key operations). */
  actor: A extends 'api_key' ? AgentActor : null;
  /** The owner the call acts on, resolved and scope-checked by the wrapper (an `owner` scope); empty otherwise. */
  ownerEmail: string;
  /** Raw bearer token on public operations (an optional `rc_` requester credential). */
  bearer: string | null;
  clientIp: string;
  /** Absolute base for URLs handed out (PUBLIC_BASE_URL or the request origin). */
  baseUrl: string;
  idempotencyKey: string | null;
  /**
   * What a claim this call runs needs from it (server/domain/claims/answeredClaim.ts): the calendar
   * gate of the owner the call names when its gate is the claim's (`scope.gate: 'claim'`), and
   * the Idempotency-Key's record, where the claim's transaction stores its accepted answer (the
   * wrapper then answers exactly the stored text). Hand it to `runAnsweredClaim` (with another
   * `gate` for an owner the operation learns itself: a booking's owner). Only for an operation
   * declaring `transaction: 'own'`; others get no record (the wrapper's transaction stores it).
   */
  claimCall: ClaimCall;
};

/**
 * What a handler returns: a body (status from `success.status`) or an explicit
 * response. The body is typed by the success schema (`R`), so a domain view
 * that drifts from the documented response fails the type check.
 */
export type HandlerResult<R = unknown, R2 = undefined> = { status?: number; body: ResultBody<R, R2>; headers?: Record<string, string> };
type ResultBody<R, R2> = (R extends z.ZodType ? z.infer<R> : unknown) | (R2 extends z.ZodType ? z.infer<R2> : never);

/**
 * Whom one call acts on (docs/architecture.md "The request path of a REST call", step 6), read
 * from its input by the operation's `scope.of`:
 *
 * - `owner`: one calendar owner (`email`; a `user:` scoped agent may omit it). The wrapper
 *   resolves it, refuses one outside the agent's owner_scope, and runs the owner's calendar gate.
 * - `group`: several owners named at once (docs/groups.md). The wrapper checks each of `emails`
 *   against the owner_scope (the first outside it is refused and audited) and runs no gate: the
 *   domain reads every owner's calendars itself.
 * - `pool`: a pool names no single owner. The domain checks the scope over the members it may
 *   pick and runs the gate of the one it claims on (docs/groups.md, "Pools").
 * - `none`: addressed by id or naming nobody; the domain checks scope where it applies.
 */
export type CallScope =
  | { kind: 'owner'; email: string | undefined | null }
  | { kind: 'group'; emails: readonly string[] }
  | { kind: 'pool' }
  | { kind: 'none' };

type OperationScope<In> = {
  of: (input: In) => CallScope;
  /**
   * Where an `owner` call's calendar gate runs (docs/calendars.md: stale calendars synced,
   * unusable ones fail closed): before the Idempotency-Key (default); `claim`: in the claim's
   * own reads (the handler runs its decision through `runAnsweredClaim` with `claimCall`);
   * false: nowhere (the calendars' own status).
   */
  gate?: 'claim' | false;
};

/** An owner call: the owner `email` names (helpers for `scope.of`). */
export const ownerCall = (email: string | undefined | null): CallScope => ({ kind: 'owner', email });
export const groupCall = (emails: readonly string[]): CallScope => ({ kind: 'group', emails });
export const POOL_CALL: CallScope = { kind: 'pool' };

export type OperationSpec<B, Q, P, A extends AuthMode, R = z.ZodType | undefined, R2 = z.ZodType | undefined> = {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/agents/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: A;
  /** Agent permission required (API-key operations): one, or a list of which any one suffices. */
  permission?: PermissionRequirement;
  /**
   * Rate-limit policy; default `global` (per client IP). `key`: counts per API
   * key instead of per IP. A function: counted on top of the per-IP limit, per
   * the identifier it resolves; null (the link or token does not exist)
   * charges only the per-IP limit. See server/http/limits.ts.
   */
  rateLimit?: { policy: RateLimitName; by: 'key' | 'ip' | ((raw: { params: Record<string, string>; clientIp: string; db: Db }) => Promise<string | null>) };
  /** Whom the call acts on (see OperationScope); none when absent. */
  scope?: OperationScope<OperationInput<B, Q, P>>;
  body?: B;
  query?: Q;
  params?: P;
  /**
   * The success answer; `also`: another success status a handler answers with the same body
   * (returning `status`), documented beside it (e.g. 200 for an existing record where 201 creates);
   * with its own `schema` when its body differs (202 pending_approval beside a 201 booking).
   */
  success: { status: number; description: string; schema?: R; also?: { status: number; description: string; schema?: R2 } };
  /**
   * Error codes this operation can answer beyond the ones every operation of
   * its kind can (its own `permission` adds `permission_denied:<permission>`;
   * list other `permission_denied:<perm>` codes it checks, or
   * `permission_denied` for any permission).
   */
  errors: (ErrorCode | PermissionDeniedCode)[];
  /**
   * The success status when it depends on the answer (a booking an approval policy held: 202,
   * else `success.status`). The wrapper answers with it, and a claim stores it with its answer.
   */
  answerStatus?: (body: ResultBody<R, R2>) => number;
  /**
   * Idempotency-Key handling (default: on for mutating API-key operations).
   * `redact` lists top-level response fields never stored (secrets shown once);
   * a replay answers them as null.
   */
  idempotency?: false | { redact?: string[] };
  /**
   * The transaction a mutating API-key call runs in, where its Idempotency-Key's answer is stored
   * with its change (docs/api.md "Idempotency"). Default: the wrapper's. The handler's `db` is a
   * transaction, the answer is stored as its last statement, and the handler's own transactions
   * nest in it (savepoints); work that must wait for the commit goes through afterCommit
   * (server/domain/afterCommit.ts).
   * - `own`: the handler's own stores it: a claim (`runAnsweredClaim` with `claimCall`; the claim
   *   runner owns its transaction, retries and queue) or `runAnsweredTransaction`.
   * - false: none around the handler (outbound network calls, long work); the answer is stored
   *   after it, so a retry after a lost COMMIT answer runs it again.
   */
  transaction?: 'own' | false;
  /**
   * Whether a call changes state (default: every method but GET). Declared where
   * the method misleads: a POST that only reads (a search), a GET that consumes
   * (draining the notification queue). MCP tool annotations read it (server/mcp/tools.ts).
   */
  writes?: boolean;
  // Method syntax (bivariant) so specific operations fit AnyOperation.
  handler(ctx: HandlerContext<B, Q, P, A>): Promise<HandlerResult<R, R2>>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation, whatever its schemas
export type AnyOperation = OperationSpec<any, any, any, AuthMode, any, any>;

/** Declare an operation: transport contract (schemas, auth, limits, errors) plus the few lines that call the domain. */
export function defineOperation<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
  R extends z.ZodType | undefined = undefined,
  R2 extends z.ZodType | undefined = undefined,
>(spec: OperationSpec<B, Q, P, A, R, R2>): OperationSpec<B, Q, P, A, R, R2> {
  return spec;
}

/** Whether the operation changes state (`writes`, else by its method). */
export function operationWrites(op: Pick<AnyOperation, 'method' | 'writes'>): boolean {
  return op.writes ?? op.method !== 'GET';
}

export function isMutating(method: HttpMethod): boolean {
  return method !== 'GET';
}

/** Whether the operation takes the caller's `time_zone` (its answers carry start_local/end_local; docs/api.md "The caller's time zone"). */
export function takesCallerZone(op: Pick<AnyOperation, 'query'>): boolean {
  const shape = (op.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return Boolean(shape && 'time_zone' in shape);
}
