import type { Db } from '@/server/db';
import type { AgentActor } from '@/server/domain/access';
import { writeDeniedAudit } from '@/server/domain/audit';
import { GateRefusal, type KeyAnswer } from '@/server/domain/claims';
import type { DomainError } from '@/server/domain/errors';
import { log } from '@/server/log';
import { drainNotificationsAnswering, type NotificationItem } from '@/server/domain/notificationService';
import { metrics } from '@/server/observability/metrics';
import { setSpanAttributes } from '@/server/observability/tracing';
import { drain, present, type Call } from './call';
import { errorBody, jsonResponse, statusOf, toDomainError, type ErrorBody } from './envelope';
import { fieldLocator } from './fieldPaths';
import { completeIdempotent, releaseIdempotent, releaseIdempotentLater } from './idempotency';
import type { AnyOperation } from './operation';

/**
 * The answer to a call that any step refused or failed: the error envelope (docs/api.md "3.
 * Errors") with the agent's pending notifications; the claimed key stores it (4xx) or is freed
 * (5xx, 429, a refusal of the claim's calendar gate); a refusal of permission or owner scope
 * leaves a denied audit row; a 401 carries WWW-Authenticate.
 */
export async function answerFailure(call: Call, caught: unknown): Promise<Response> {
  const { op, headers, db, actor } = call;
  // A refusal of the calendar gate run inside the claim is answered like any other, but frees the key.
  const gateRefused = caught instanceof GateRefusal;
  const thrown = gateRefused ? caught.refusal : caught;
  const err = toDomainError(thrown);
  const status = statusOf(err);
  setSpanAttributes({ 'error.code': err.code, reason: err.reason ?? err.code });
  if (status >= 500) log.error('request failed', { operation: op.operationId, err: thrown });
  if (err.code === 'IDEMPOTENCY_CONFLICT' || err.code === 'IDEMPOTENCY_IN_FLIGHT') metrics().idempotencyConflicts.inc({ code: err.code });
  const body: ErrorBody = present(call, errorBody(err, fieldLocator(op)));
  const denied = err.code.startsWith('permission_denied') || err.code === 'owner_scope_denied';
  const free = status >= 500 || status === 429 || gateRefused;
  // The agent's pending notifications are drained while the answer is stored: one statement
  // when the key keeps this answer (`together`), else both sent at once.
  const together = Boolean(db && actor && !denied && call.key && !free);
  const draining = db && actor && !denied ? (together ? completeAndDrain(db, actor, call.key!, err, body) : drain(db, actor)) : null;
  if (db && call.key && !together) await settleKey(db, call.key, err, free, body);
  if (typeof err.extra?.retry_after_seconds === 'number') headers.set('retry-after', String(err.extra.retry_after_seconds));
  if (db && actor && denied) await auditDenied(db, actor, op, err, call.now);
  if (status === 401) headers.set('www-authenticate', `Bearer error="invalid_token", error_description="${err.code}"`);
  const pending = present(call, draining ? await draining : db && actor ? await drain(db, actor) : []);
  return jsonResponse(status, { ...body, pending_notifications: pending }, headers);
}

/**
 * The claimed key after a refusal: the error body is stored (without `pending_notifications`,
 * added to each answer and replay), or the key freed so a retry runs again.
 */
async function settleKey(db: Db, key: KeyAnswer, err: DomainError, free: boolean, body: ErrorBody): Promise<void> {
  try {
    if (free) await releaseIdempotent(db, key.recordId);
    else await completeIdempotent(db, key.recordId, statusOf(err), JSON.stringify(body));
  } catch (storeErr) {
    log.error('idempotency bookkeeping failed', { err: storeErr });
    // The database is away: free the key once it is back, so a retry need not wait out the lease.
    if (err.code === 'service_unavailable') releaseIdempotentLater(db, key.recordId);
  }
}

/** The key's record takes the error body (as settleKey) in the statement that drains the agent's notifications. */
async function completeAndDrain(db: Db, actor: AgentActor, key: KeyAnswer, err: DomainError, body: ErrorBody): Promise<NotificationItem[]> {
  try {
    return await drainNotificationsAnswering(db, actor.agentId, { recordId: key.recordId, status: statusOf(err), bodyText: JSON.stringify(body) });
  } catch (storeErr) {
    // Neither the answer nor the queue went (a 4xx: the key is left to its lease, as settleKey leaves it).
    log.error('idempotency bookkeeping failed', { err: storeErr });
    return [];
  }
}

/** A refusal of permission or owner scope leaves an audit row (outcome denied), so an owner sees what an agent tried (docs/api.md "Audit log"). */
async function auditDenied(db: Db, actor: AgentActor, op: AnyOperation, err: DomainError, now: Date): Promise<void> {
  try {
    await writeDeniedAudit(db, {
      customerId: actor.customerId,
      agentId: actor.agentId,
      code: err.code,
      ownerEmail: err.ownerEmail,
      details: { operation: op.operationId, method: op.method, path: op.path },
      at: now,
    });
  } catch (auditErr) {
    log.error('denied-request audit failed', { err: auditErr });
  }
}
