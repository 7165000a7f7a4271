import type { z } from 'zod';
import type { Db, Executor } from '@/db/client';
import type { AgentActor, PermissionRequirement } from '@/server/domain/access';
import type { ErrorCode } from './errorStatus';
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
  /** Raw bearer token on public operations (an optional `rc_` requester credential). */
  bearer: string | null;
  clientIp: string;
  /** Absolute base for URLs handed out (PUBLIC_BASE_URL or the request origin). */
  baseUrl: string;
  idempotencyKey: string | null;
  /**
   * With an Idempotency-Key: store the success response (status `success.status`,
   * this body) in the caller's transaction, so the effect and its replayable
   * answer commit together; the wrapper then answers with exactly the stored
   * text and stores nothing after. Issues the statement at once (pipelined)
   * and returns its completion. Null without a key.
   */
  storeResponse: StoreResponse | null;
};

export type StoreResponse = (tx: Executor, body: unknown) => Promise<unknown>;

/** What a handler returns: a body (status from `success.status`) or an explicit response. */
export type HandlerResult = { status?: number; body: unknown; headers?: Record<string, string> };

export type OperationSpec<B, Q, P, A extends AuthMode> = {
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
  /** Calls naming an owner first sync that owner's stale calendars and fail closed on unusable ones (docs/calendars.md); false skips it (calendar status itself). */
  calendarGate?: false;
  body?: B;
  query?: Q;
  params?: P;
  success: { status: number; description: string; schema?: z.ZodType };
  /** Error codes this operation can answer beyond the ones every operation of its kind can. */
  errors: ErrorCode[];
  /**
   * Idempotency-Key handling (default: on for mutating API-key operations).
   * `redact` lists top-level response fields never stored (secrets shown once);
   * a replay answers them as null.
   */
  idempotency?: false | { redact?: string[] };
  // Method syntax (bivariant) so specific operations fit AnyOperation.
  handler(ctx: HandlerContext<B, Q, P, A>): Promise<HandlerResult>;
};

export type AnyOperation = OperationSpec<any, any, any, AuthMode>;

/** Declare an operation: transport contract (schemas, auth, limits, errors) plus the few lines that call the domain. */
export function defineOperation<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
>(spec: OperationSpec<B, Q, P, A>): OperationSpec<B, Q, P, A> {
  return spec;
}

export function isMutating(method: HttpMethod): boolean {
  return method !== 'GET';
}
