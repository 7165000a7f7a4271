import { eq, inArray } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { isConstraintViolation, PG_EXCLUSION_VIOLATION } from '@/db/errors';
import { commitWithLastStatements } from '@/db/statements';
import { claims } from '@/db/schema';
import { hasPermission, normalizeEmail, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { enqueueNotification } from '../notificationService';
import { arbitrate, nextAvailable, VERDICT_CLAIMS_MARGIN_MS, type Alternative, type Decision, type RequestPolicy } from '../scheduling';
import { writeAudit, type AuditAction } from './audit';
import { claimIdMadeWithKey, claimRow, insertClaim, type NewClaim, type OwnerRef } from './claimStore';
import { ARBITRATION_MARGIN_MS, expireDueHolds, loadClaims, loadTarget, ownerRules, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';

const iso = (ms: number) => new Date(ms).toISOString();

export function requestPolicy(actor: AgentActor, target: SchedulingTarget, policyOverride?: 'never' | 'preempt_lower'): RequestPolicy {
  return {
    priority: target.meetingClass.priority,
    preemptPolicy: policyOverride ?? target.meetingClass.preemptPolicy,
    agentCanPreempt: hasPermission(actor, 'preempt'),
  };
}

export function alternativesJson(alts: readonly Alternative[]) {
  return alts.map((a) => ({ start: iso(a.start), end: iso(a.end), reason_code: a.reason_code }));
}

const REASON_MESSAGES: Record<string, string> = {
  NO_CAPACITY: 'The slot is committed by a booking of equal or higher priority, or lies inside a hard block',
  WORKING_HOURS: "The slot is outside the owner's working hours",
  OFF_DAY: "The slot is not on one of the owner's working days (see GET /v1/schedule-rules)",
  SACRED_MEETING: 'The slot overlaps a protected (sacred) meeting',
  MAX_DAILY_HOURS: "Booking this would exceed the owner's maximum daily meeting hours",
  PERMISSION_DENIED_PREEMPT: 'The slot is held by a lower-priority booking, but this agent lacks the preempt permission',
};

/** The 409 (or 422 PAST_TIME) a non-accepting decision answers. */
export function decisionError(decision: Exclude<Decision, { outcome: 'accept' }>, claimsAround: readonly LoadedClaim[], ctx: { target: SchedulingTarget; policy: RequestPolicy; start: number; end: number; now: number }): DomainError {
  if (decision.outcome === 'past_time') return new DomainError('PAST_TIME', 'The requested start is in the past');
  const alternatives = alternativesJson(decision.alternatives);
  const extra: Record<string, unknown> = { alternatives };
  if (decision.failedReason === 'WORKING_HOURS' || decision.failedReason === 'OFF_DAY') {
    const next = nextAvailable({
      rules: ownerRules(ctx.target.owner),
      claims: claimsAround,
      now: ctx.now,
      durationMinutes: (ctx.end - ctx.start) / 60_000,
      request: ctx.policy,
      from: ctx.start,
      lookaheadEnd: ctx.start + 72 * 3_600_000,
    });
    extra.next_available = next ? { start: iso(next.start), end: iso(next.end) } : null;
  }
  if (decision.warnings.length) extra.warnings = decision.warnings;
  const base = REASON_MESSAGES[decision.failedReason] ?? decision.failedReason;
  const message = decision.outcome === 'counter_propose' ? `${base}; counter-proposing ${alternatives.length} alternative slot(s) in alternatives[]` : base;
  return new DomainError('ARBITRATION_REJECTED', message, { reason: decision.reason, extra });
}

/**
 * Stores the answer to the request inside the claim's transaction (the
 * REST wrapper's idempotent response; see StoreResponse in server/http).
 */
export type AnswerStore = (tx: Executor, answer: unknown) => Promise<unknown>;

/**
 * On whose behalf a claim is made: an agent (AgentActor fits), or an owner
 * deciding in the dashboard (agentId null, e.g. approving a public proposal).
 */
export type ClaimActor = { customerId: string; agentId: string | null };

export type ClaimIntent = {
  action: AuditAction;
  actor: ClaimActor;
  target: SchedulingTarget; // owner row locked by the caller's transaction
  start: Date;
  end: Date;
  policy: RequestPolicy;
  now: Date;
  idempotencyKey: string | null;
  excludeClaimIds?: string[];
  holdId?: string | null;
  /** The claims around [start, end) +- VERDICT_CLAIMS_MARGIN_MS, due holds expired, when the caller loaded them (loadClaimTarget). */
  around?: LoadedClaim[];
  /** The claim to insert when accepted (after preempted claims were released). */
  claim: NewClaim;
  /**
   * The caller's transaction ends with this claim: COMMIT goes out with the
   * claim and its audit row (commitWithLastStatements), one round trip fewer.
   * The caller then sends no further statements in it.
   */
  lastInTransaction?: boolean;
  /**
   * Called once the claim and its audit row are sent (before COMMIT), with what
   * the answer is built from; statements it issues at once join the same
   * round trip (e.g. the idempotent response stored with the effect).
   */
  onAccepted?(tx: Executor, accepted: { row: ClaimRow; preemptedIds: string[]; warnings: string[] }): Promise<unknown> | undefined;
  /** Runs before the insert, after preemption (e.g. mark the confirmed hold promoted). */
  beforeInsert?(tx: Executor): Promise<void>;
};

export type ClaimOutcome = { ok: true; row: ClaimRow; preemptedIds: string[]; warnings: string[] } | { ok: false; error: DomainError };

/**
 * Expire the owner's due holds and load the claims within `margin` of [start, end), in one
 * round trip (the update runs first). The default is what a verdict weighs
 * (VERDICT_CLAIMS_MARGIN_MS); a rejection loads the wider range its alternatives need
 * (decideAndApply).
 */
export function loadAround(tx: Executor, owner: OwnerRef, start: Date, end: Date, now: Date, margin = VERDICT_CLAIMS_MARGIN_MS): Promise<LoadedClaim[]> {
  return Promise.all([
    expireDueHolds(tx, owner, now),
    loadClaims(tx, owner, new Date(start.getTime() - margin), new Date(end.getTime() + margin), now),
  ]).then(([, around]) => around);
}

/**
 * A claim on an owner named by email (direct booking, candidate hold): the
 * locked owner with its calendar and meeting class, and the claims around
 * [start, end) with due holds expired, sent as one pipeline. The owner lock
 * is taken first, so the rest reads under it. Errors are loadTarget's.
 */
export async function loadClaimTarget(
  tx: Executor,
  customerId: string,
  input: { ownerEmail: string; calendarType?: string; meetingClass: string },
  start: Date,
  end: Date,
  now: Date,
): Promise<{ target: SchedulingTarget; around: LoadedClaim[] }> {
  const owner = { customerId, email: normalizeEmail(input.ownerEmail) };
  const [target, around] = await Promise.all([loadTarget(tx, customerId, input, true), loadAround(tx, owner, start, end, now)]);
  return { target, around };
}

/**
 * Arbitrate a claim and apply the decision in the caller's transaction:
 * preempt what gives way, insert, notify, and write the audit row. A
 * rejection is audited too and returned (not thrown) so the audit commits.
 */
export async function decideAndApply(tx: Executor, intent: ClaimIntent): Promise<ClaimOutcome> {
  const { target, now, actor } = intent;
  const start = intent.start.getTime();
  const end = intent.end.getTime();
  const request = { start, end, ...intent.policy };
  const context = { now: now.getTime(), rules: ownerRules(target.owner), excludeClaimIds: intent.excludeClaimIds };
  let around = intent.around ?? (await loadAround(tx, target.owner.id, intent.start, intent.end, now));
  let decision = arbitrate(request, { ...context, claims: around });
  if (decision.outcome === 'reject' || decision.outcome === 'counter_propose') {
    // The verdict stands (it depends only on the claims loaded); its alternatives and
    // next_available look up to 72 h further out.
    around = await loadClaims(tx, target.owner.id, new Date(start - ARBITRATION_MARGIN_MS), new Date(end + ARBITRATION_MARGIN_MS), now);
    decision = arbitrate(request, { ...context, claims: around });
  }
  const audit = {
    customerId: actor.customerId,
    agentId: actor.agentId,
    ownerId: target.owner.id,
    ownerEmail: target.owner.email,
    action: intent.action,
    meetingClass: target.meetingClass.name,
    start: intent.start,
    end: intent.end,
    holdId: intent.holdId ?? null,
    idempotencyKey: intent.idempotencyKey,
    at: now,
  };
  if (decision.outcome !== 'accept') {
    const outcome = decision.outcome === 'counter_propose' ? 'counter_propose' : 'reject';
    const reason = decision.outcome === 'past_time' ? 'PAST_TIME' : decision.reason;
    await writeAudit(tx, {
      ...audit,
      outcome,
      reason,
      details: decision.outcome === 'past_time' ? undefined : { failed_reason: decision.failedReason, alternatives: alternativesJson(decision.alternatives) },
    });
    return { ok: false, error: decisionError(decision, around, { target, policy: intent.policy, start, end, now: now.getTime() }) };
  }

  const preempted = around.filter((c) => decision.preempt.includes(c.id));
  const claimId = intent.claim.id;
  if (preempted.length) {
    await tx
      .update(claims)
      .set({ status: 'preempted', statusReason: `preempted by ${target.meetingClass.name}`, preemptedByClaimId: claimId, updatedAt: now })
      .where(inArray(claims.id, decision.preempt));
    for (const p of preempted) {
      if (!p.agentId) continue;
      await enqueueNotification(tx, {
        customerId: actor.customerId,
        agentId: p.agentId,
        kind: 'booking.preempted',
        data: {
          [p.kind === 'hold' ? 'hold_id' : 'booking_id']: p.id,
          claim_kind: p.kind,
          owner_email: target.owner.email,
          start: iso(p.start),
          end: iso(p.end),
          preempted_by_meeting_class: target.meetingClass.name,
        },
        now,
      });
    }
  }
  await intent.beforeInsert?.(tx);
  const bookingIds = preempted.map((p) => p.id);
  const isHold = intent.claim.kind === 'hold';
  // The claim and its audit row in one round trip: the id is known beforehand.
  const row = claimRow(intent.claim);
  const written = Promise.all([
    insertClaim(tx, intent.claim),
    writeAudit(tx, {
      ...audit,
      outcome: 'accept',
      holdId: isHold ? claimId : (intent.holdId ?? null),
      bookingId: isHold ? null : claimId,
      preemptedBookingIds: bookingIds,
    }),
  ]);
  const answered = intent.onAccepted?.(tx, { row, preemptedIds: bookingIds, warnings: decision.warnings });
  if (intent.lastInTransaction) commitWithLastStatements(tx);
  await Promise.all([written, answered]);
  return { ok: true, row, preemptedIds: bookingIds, warnings: decision.warnings };
}

/**
 * Run a claiming transaction. The owner lock makes decisions of one owner
 * sequential, so the exclusion constraint fires only against writers that do
 * not take it; then the whole decision runs once more to answer the true
 * reason, and a second collision is answered as NO_CAPACITY, never a 500.
 */
export async function runClaimTransaction<T>(db: Db, fn: (tx: Executor) => Promise<T>, queueKey?: string): Promise<T> {
  const run = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await db.transaction((tx) => fn(tx));
      } catch (err) {
        if (!isConstraintViolation(err, PG_EXCLUSION_VIOLATION)) throw err;
        if (attempt >= 1) {
          throw new DomainError('ARBITRATION_REJECTED', 'The slot was just taken by a concurrent request', { reason: 'NO_CAPACITY', extra: { alternatives: [] } });
        }
      }
    }
  };
  return queueKey ? inQueue(queueKey, run) : run();
}

const queues = new Map<string, Promise<void>>();

/** The queue key of claims on one owner named by email. */
export function ownerQueueKey(customerId: string, ownerEmail: string): string {
  return `owner:${customerId}:${ownerEmail.trim().toLowerCase()}`;
}

/**
 * Run claim decisions with the same key (an owner, a hold) one at a time in
 * this process. Correctness comes from the owner row lock; this only keeps a
 * burst for one owner from parking every pooled connection on that lock
 * (which would stall other owners and the health check): waiters wait here,
 * in memory, and at most one per key and instance waits in the database.
 */
export async function inQueue<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
  queues.set(key, mine);
  try {
    await previous;
    return await fn();
  } finally {
    done?.();
    if (queues.get(key) === mine) queues.delete(key);
  }
}

/**
 * The claim this agent already made with this Idempotency-Key, if any. The
 * wrapper replays finished keys itself; this covers a process that died after
 * committing the effect but before storing the response: the retry takes the
 * key over and must find the effect instead of colliding with it.
 */
export async function claimMadeWithKey(tx: Executor, agentId: string, idempotencyKey: string | null, kind: 'hold' | 'booking', now: Date): Promise<ClaimRow | undefined> {
  if (!idempotencyKey) return undefined;
  const id = await claimIdMadeWithKey(tx, agentId, idempotencyKey, kind, now);
  if (!id) return undefined;
  const [row] = await tx.select().from(claims).where(eq(claims.id, id));
  return row;
}
