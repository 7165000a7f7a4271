import { getDb, type Db } from '@/server/db';
import { requirePermission } from '@/server/domain/access';
import { redact, runAnsweredTransaction } from '@/server/domain/claims';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { DomainError } from '@/server/domain/errors';
import { logContext } from '@/server/log';
import { metrics } from '@/server/observability/metrics';
import { setSpanAttributes } from '@/server/observability/tracing';
import { rateLimitKeys } from '@/server/rateLimit/keys';
import { publicBaseUrl } from '@/server/request';
import { drain, newCall, present, type Call } from './call';
import { jsonResponse, jsonTextResponse, toDomainError } from './envelope';
import { answerFailure } from './failure';
import { beginIdempotent, completeIdempotent, replayBody, requestFingerprint, validIdempotencyKey } from './idempotency';
import { parse, validPath, type ParsedInput } from './input';
import { applyRateLimits, rateLimited, setRateLimitHeaders, type LimitPlan } from './limits';
import { isMutating, type AnyOperation, type HandlerResult } from './operation';
import { resolveScope, type ResolvedScope } from './scope';

type RouteParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * Answer one call of an operation (docs/architecture.md "The request path of a REST call"),
 * step by step: authenticate, limit, authorize, parse, resolve scope, begin idempotency, run,
 * answer. Each step reads the call and what the earlier ones settled on it; any refusal or
 * failure is thrown, and answered in the envelope by answerFailure (server/http/failure.ts).
 */
export async function answerOperation(op: AnyOperation, req: Request, routeParams: RouteParams, headers: Headers): Promise<Response> {
  const call = newCall(op, req, headers);
  try {
    const db = (call.db = await getDb());
    const authFailure = await authenticate(call, db);
    const rawParams = ((await routeParams) ?? {}) as Record<string, string>;
    await limit(call, db, rawParams);
    authorize(call, authFailure);
    const input = await parse(call, rawParams);
    const scope = await resolveScope(op, input, call.actor, db, call.now);
    const replay = await beginIdempotency(call, db, input.body);
    if (replay) return replay;
    return await answer(call, db, await run(call, db, input, scope));
  } catch (caught) {
    return answerFailure(call, caught);
  }
}

/**
 * Step: authenticate (API-key operations). Settles `call.actor` and the caller's zone from
 * the key; a refused key is returned, not thrown: it is answered after the rate limit, so
 * key guessing is limited too.
 */
async function authenticate(call: Call, db: Db): Promise<DomainError | null> {
  if (call.op.auth !== 'api_key') return null;
  try {
    const actor = await authenticateApiKey(db, call.bearer, call.now);
    call.actor = actor;
    call.zone = actor.displayTimeZone ?? null;
    const ctx = logContext();
    if (ctx) {
      ctx.customer_id = actor.customerId;
      ctx.agent_id = actor.agentId;
    }
    setSpanAttributes({ 'customer.id': actor.customerId, 'agent.id': actor.agentId });
    return null;
  } catch (err) {
    const refusal = toDomainError(err);
    if (refusal.code === 'internal_error') throw err;
    return refusal;
  }
}

/**
 * Step: limit (server/http/limits.ts). The operation's per-key policy, or the global per-IP
 * limit plus the operation's own; RateLimit-* headers on every answer, 429 when denied.
 */
async function limit(call: Call, db: Db, rawParams: Record<string, string>): Promise<void> {
  const { op, actor, clientIp } = call;
  const rl = op.rateLimit;
  const by = rl?.by;
  const plan: LimitPlan =
    by === 'key' && actor
      ? { kind: 'key', policy: rl!.policy, keyId: actor.keyId }
      : {
          kind: 'ip',
          clientIp,
          policy: by === 'key' ? undefined : rl?.policy, // a failed authentication counts per IP only
          identify:
            typeof by === 'function'
              ? // path values that will fail the parse step name nothing: only the per-IP limit applies
                async () => (validPath(op, rawParams) ? by({ params: rawParams, clientIp, db }) : null)
              : async () => rateLimitKeys.ip(clientIp),
        };
  const decision = await applyRateLimits(plan);
  setRateLimitHeaders(call.headers, decision);
  if (!decision.success) throw rateLimited();
}

/** Step: authorize. The refused key (after the limit), then the operation's permission. */
function authorize(call: Call, authFailure: DomainError | null): void {
  if (authFailure) throw authFailure;
  if (call.actor && call.op.permission) requirePermission(call.actor, call.op.permission);
}

/**
 * Step: begin idempotency (mutating API-key operations with an Idempotency-Key). Claims the
 * key for this request (settling `call.key`), or answers the stored answer: a success byte
 * for byte, an error with the agent's current notifications (server/http/idempotency.ts).
 */
async function beginIdempotency(call: Call, db: Db, body: unknown): Promise<Response | null> {
  const { op, actor, idempotencyKey } = call;
  if (idempotencyKey === null || !actor || op.idempotency === false || !isMutating(op.method)) return null;
  if (!validIdempotencyKey(idempotencyKey)) {
    throw new DomainError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  const scope = { agentId: actor.agentId, method: op.method, path: call.url.pathname, key: idempotencyKey };
  const start = await beginIdempotent(db, scope, requestFingerprint(body, call.url.search), call.now);
  if (start.kind === 'replay') {
    call.headers.set('idempotent-replayed', 'true');
    metrics().idempotentReplays.inc();
    const pending = start.status >= 400 ? present(call, await drain(db, actor)) : null;
    return jsonTextResponse(start.status, replayBody(start, pending), call.headers);
  }
  call.key = { recordId: start.recordId, status: (value) => successStatus(op, value), redact: op.idempotency?.redact ?? [], zone: call.zone };
  return null;
}

/**
 * Step: run. The operation's handler, handed what the steps settled. A mutating API-key
 * operation runs in a transaction that stores the key's answer with its change
 * (`op.transaction`, docs/api.md "Idempotency"): by default the wrapper's, handed to the handler
 * as its `db`; a claim's own (`'own'`: it gets its gate and the key's record, `claimCall`); or
 * none (false: the answer is stored after it, by the answer step).
 */
function run(call: Call, db: Db, input: ParsedInput, scope: ResolvedScope): Promise<HandlerResult> {
  const { op } = call;
  const own = op.transaction === 'own';
  const handle = (db: Db) =>
    op.handler({
      ...input,
      req: call.req,
      db,
      now: call.now,
      requestId: call.requestId,
      actor: call.actor,
      ownerEmail: scope.ownerEmail,
      bearer: call.bearer,
      clientIp: call.clientIp,
      baseUrl: publicBaseUrl(call.req, call.config.publicBaseUrl),
      idempotencyKey: call.idempotencyKey,
      claimCall: { gate: scope.gate, answer: own ? call.key : null },
    });
  if (op.transaction !== undefined || !wrapped(op)) return handle(db);
  return runAnsweredTransaction(db, call.key, handle, (result) => ({ body: result.body, status: result.status ?? successStatus(op, result.body) }));
}

/** Whether the wrapper's transaction may run the operation: a mutating API-key operation that takes an Idempotency-Key. */
function wrapped(op: AnyOperation): boolean {
  return op.auth === 'api_key' && op.idempotency !== false && isMutating(op.method);
}

/**
 * Step: answer. The handler's answer with the caller's twins; under a claimed key, the text the
 * change's transaction stored is sent as is, and any other answer (an operation without a
 * transaction: `transaction: false`) is stored now.
 */
async function answer(call: Call, db: Db, result: HandlerResult): Promise<Response> {
  const { headers, key } = call;
  const status = result.status ?? successStatus(call.op, result.body);
  for (const [k, v] of Object.entries(result.headers ?? {})) headers.set(k, v);
  if (key?.answered && key.answered.status === status) return jsonTextResponse(status, key.answered.text, headers);
  const body = present(call, result.body);
  if (key) await completeIdempotent(db, key.recordId, status, JSON.stringify(redact(body, key.redact)));
  return jsonResponse(status, body, headers);
}

function successStatus(op: AnyOperation, body: unknown): number {
  return op.answerStatus?.(body) ?? op.success.status;
}
