import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { AgentActor, PermissionRequirement } from '@/server/domain/access';
import type { ClaimOperation, GateOwner } from '@/server/domain/claims/claimRunner';
import type { ErrorCode, PermissionDeniedCode } from '@/server/domain/errorCodes';
import type { RateLimitName } from './limits';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
export type AuthMode = 'api_key' | 'public';
export type { RateLimitName } from './limits';

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

export type OperationInput<B, Q, P> = { body: Infer<B>; query: Infer<Q>; params: Infer<P> };

export type HandlerContext<B, Q, P, A extends AuthMode> = OperationInput<B, Q, P> & {
  req: Request;
  db: Db;
  now: Date;
  requestId: string;
  /** The calling agent (API-key operations). */
  actor: A extends 'api_key' ? AgentActor : null;
  /** Owner the call acts on, resolved and scope-checked by the wrapper (operations that declare `ownerEmail`). */
  ownerEmail: string;
  /** Owners a group call names (operations that declare `ownerEmails`), normalised and each scope-checked; empty otherwise. */
  ownerEmails: string[];
  /** Raw bearer token on public operations (an optional `rc_` requester credential). */
  bearer: string | null;
  clientIp: string;
  /** Absolute base for URLs handed out (PUBLIC_BASE_URL or the request origin). */
  baseUrl: string;
  idempotencyKey: string | null;
  /**
   * Run a claiming operation (holds, bookings, confirms): the wrapper opens its transaction
   * (runClaimTransaction), runs its core, and with an Idempotency-Key stores the success
   * response (status `success.status`, the value as body) as the transaction's last
   * statement, so the effect and its replayable answer commit together; it then answers
   * with exactly the stored text. Returns the value; a rejection is thrown after commit.
   * `named`: the owner whose calendar gate the claim runs behind when the call names no owner
   * itself: a pool's pick (its email; `ownerless`; may be called again after a rejection), or
   * the owner an operation learns from what it names (a booking's owner, read first).
   */
  claim<T>(operation: ClaimOperation<T>, named?: string | GateOwner): Promise<T>;
};

/**
 * What a handler returns: a body (status from `success.status`) or an explicit
 * response. The body is typed by the success schema (`R`), so a domain view
 * that drifts from the documented response fails the type check.
 */
export type HandlerResult<R = unknown> = { status?: number; body: R extends z.ZodType ? z.infer<R> : unknown; headers?: Record<string, string> };

export type OperationSpec<B, Q, P, A extends AuthMode, R = z.ZodType | undefined> = {
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
  /** The calendar owner this call acts on, read from the input; the wrapper resolves and scope-checks it. */
  ownerEmail?: (input: OperationInput<B, Q, P>) => string | undefined | null;
  /**
   * The owners a group call names (docs/groups.md): when this returns a non-empty list, the
   * wrapper scope-checks every one (the first outside the agent's owner_scope is refused and
   * audited as denied) and skips `ownerEmail` and the wrapper's calendar gate: the operation
   * reads every owner's calendars itself (claims/groupFacts.ts).
   */
  ownerEmails?: (input: OperationInput<B, Q, P>) => readonly string[] | undefined | null;
  /**
   * The call names no single owner (a `pool`): the wrapper resolves no owner and runs no
   * calendar gate; the domain checks the agent's scope over every owner it may pick, and
   * the handler names the picked owner to `claim` (docs/groups.md, "Pools").
   */
  ownerless?: (input: OperationInput<B, Q, P>) => boolean;
  /**
   * Calls naming an owner first sync that owner's stale calendars and fail closed on unusable
   * ones (docs/calendars.md); false skips it (calendar status itself); 'claim': the handler
   * always runs its decision through `claim`, which checks the gate in the claim's own reads
   * (server/http/idempotency.ts runClaimWithAnswer).
   */
  calendarGate?: false | 'claim';
  body?: B;
  query?: Q;
  params?: P;
  success: { status: number; description: string; schema?: R };
  /**
   * Error codes this operation can answer beyond the ones every operation of
   * its kind can (its own `permission` adds `permission_denied:<permission>`;
   * list other `permission_denied:<perm>` codes it checks, or
   * `permission_denied` for any permission).
   */
  errors: (ErrorCode | PermissionDeniedCode)[];
  /**
   * Idempotency-Key handling (default: on for mutating API-key operations).
   * `redact` lists top-level response fields never stored (secrets shown once);
   * a replay answers them as null.
   */
  idempotency?: false | { redact?: string[] };
  /**
   * Whether a call changes state (default: every method but GET). Declared where
   * the method misleads: a POST that only reads (a search), a GET that consumes
   * (draining the notification queue). MCP tool annotations read it (server/mcp/tools.ts).
   */
  writes?: boolean;
  // Method syntax (bivariant) so specific operations fit AnyOperation.
  handler(ctx: HandlerContext<B, Q, P, A>): Promise<HandlerResult<R>>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation, whatever its schemas
export type AnyOperation = OperationSpec<any, any, any, AuthMode, any>;

/** Declare an operation: transport contract (schemas, auth, limits, errors) plus the few lines that call the domain. */
export function defineOperation<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
  R extends z.ZodType | undefined = undefined,
>(spec: OperationSpec<B, Q, P, A, R>): OperationSpec<B, Q, P, A, R> {
  return spec;
}

/** Whether the operation changes state (`writes`, else by its method). */
export function operationWrites(op: Pick<AnyOperation, 'method' | 'writes'>): boolean {
  return op.writes ?? op.method !== 'GET';
}

export function isMutating(method: HttpMethod): boolean {
  return method !== 'GET';
}
