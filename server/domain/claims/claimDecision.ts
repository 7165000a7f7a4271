import { eq, inArray, or } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { isConstraintViolation, PG_EXCLUSION_VIOLATION } from '@/db/errors';
import { claimIdMadeWithKey, promoteHold } from '@/db/hot/claims';
import { defer, runTransaction } from '@/db/hot/driver';
import { claims } from '@/db/schema';
import { hasPermission, normalizeEmail, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { enqueueNotification } from '../notificationService';
import type { CalendarGate } from '../calendars/mirror';
import { recordWebhookEvent } from '../webhooks/outbox';
import { arbitrate, localSpan, nextAvailable, VERDICT_CLAIMS_MARGIN_MS, type Alternative, type Decision, type RequestPolicy } from '../scheduling';
import { writeAudit, type AuditAction, type AuditActor, type AuditEntry } from './audit';
import { claimRow, insertClaim, releaseHoldParts, type NewClaim, type OwnerRef } from './claimStore';
import { ARBITRATION_MARGIN_MS, expireDueHolds, loadClaims, loadTarget, ownerRules, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';

const iso = (ms: number) => new Date(ms).toISOString();

export function requestPolicy(actor: AgentActor, target: SchedulingTarget, policyOverride?: 'never' | 'preempt_lower'): RequestPolicy {
  return {
    priority: target.meetingClass.priority,
    preemptPolicy: policyOverride ?? target.meetingClass.preemptPolicy,
    agentCanPreempt: hasPermission(actor, 'preempt'),
  };
}

/** Alternatives as answered; with the owner's zone each also carries start_local/end_local. */
export function alternativesJson(alts: readonly Alternative[], timeZone?: string) {
  return alts.map((a) => (timeZone ? { ...localSpan(a.start, a.end, timeZone), reason_code: a.reason_code } : { start: iso(a.start), end: iso(a.end), reason_code: a.reason_code }));
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
  const alternatives = alternativesJson(decision.alternatives, ctx.target.owner.timeZone);
  // conflicts[]: what the slot collided with, for agents (never on /public answers).
  const extra: Record<string, unknown> = { alternatives, conflicts: decision.conflicts };
  if (decision.failedReason === 'WORKING_HOURS' || decision.failedReason === 'OFF_DAY') {
    const next = nextAvailable({
      rules: ownerRules(ctx.target.owner),
      claims: claimsAround,
      now: ctx.now,
      durationMinutes: (ctx.end - ctx.start) / 60_000,
      request: ctx.policy,
      from: ctx.start,
      latestStart: ctx.start + 72 * 3_600_000,
    });
    extra.next_available = next ? localSpan(next.start, next.end, ctx.target.owner.timeZone) : null;
  }
  if (decision.warnings.length) extra.warnings = decision.warnings;
  const base = REASON_MESSAGES[decision.failedReason] ?? decision.failedReason;
  const message = decision.outcome === 'counter_propose' ? `${base}; counter-proposing ${alternatives.length} alternative slot(s) in alternatives[]` : base;
  return new DomainError('ARBITRATION_REJECTED', message, { reason: decision.reason, extra });
}

/**
 * A claim to decide: the claim to insert when accepted, on a target whose owner row the
 * caller's transaction has locked, with the request's policy. The claim says the rest: its
 * times, customer and agent (null when an owner decides in the dashboard), its
 * Idempotency-Key, and for a confirm the hold it comes from (set aside by the decision and
 * promoted when accepted). `around`: the claims within VERDICT_CLAIMS_MARGIN_MS of the
 * claim, due holds expired, when the caller loaded them with the target (loadClaimTarget).
 */
export type ClaimRequest = {
  action: AuditAction;
  target: SchedulingTarget;
  policy: RequestPolicy;
  claim: NewClaim;
  now: Date;
  around?: LoadedClaim[];
  /** A confirm of an all_free window hold: its further ranges are released in the same transaction. */
  releaseHoldParts?: boolean;
  /** Who decides, when not the claim's agent: the owner approving a proposal in the dashboard (docs/reliability.md, "Audit actors"). */
  actor?: AuditActor;
  /** Facts the decision's audit row carries besides its own (an approval's proposal). */
  auditDetails?: Record<string, unknown>;
};

/** What a decision returns: the accepted claim's row with what its answer needs, or the rejection (its audit row is written). */
export type ClaimResult = { ok: true; row: ClaimRow; preemptedIds: string[]; preemptedClaims: { id: string; kind: 'hold' | 'booking' }[]; warnings: string[] } | { ok: false; error: DomainError };

/** A claim operation's value, or its rejection, returned from the transaction so its audit row commits. */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: DomainError };

/**
 * A claiming operation ready to run: the transaction's queue key (inQueue) and its core,
 * which runs in a transaction it is handed (runClaimTransaction) and returns its answer.
 * The caller opens the transaction: the REST wrapper (server/http/handler.ts), which stores
 * the idempotent answer as the transaction's last statement, or runClaimOperation.
 */
export type ClaimOperation<T> = {
  queueKey: string;
  /** `gate`: the calendar gate checked in the claim's own reads (CalendarGateNeeded; only where `gatesCalendars`). */
  run(tx: Tx, gate?: CalendarGate): Promise<Answer<T>>;
  /**
   * A refusal settled by a plain read before the queue and the owner lock
   * (earlyRefusal.ts), or null: run it first (refuseEarly), then the transaction.
   */
  refuseWithoutLock?(db: Db, gate?: CalendarGate): Promise<DomainError | null>;
  /**
   * The claim checks the calendar gate of the owner it names in its own reads when given one
   * (server/http/idempotency.ts runClaimWithAnswer); otherwise the wrapper runs the gate first.
   */
  gatesCalendars?: boolean;
  /** The slot it claims (start and end), when one: losers of the same slot wait for a running decision on it (refuseEarly). */
  slot?: string;
};

/**
 * Throw the refusal an operation can answer without the owner lock, if any. Only while
 * another decision on the same key and slot is queued or running in this process (a race
 * for the slot): an uncontended claim, or one for another slot of a busy owner, goes
 * straight to its transaction, without the extra read.
 */
export async function refuseEarly(db: Db, operation: ClaimOperation<unknown>, gate?: CalendarGate): Promise<void> {
  const { queueKey, slot } = operation;
  // A race for this very slot only: a claim for another slot of a busy owner would pay a read the lock settles anyway.
  if (!operation.refuseWithoutLock || !slot || !queuedSlots.get(queueKey)?.has(slot)) return;
  const refusal = await operation.refuseWithoutLock(db, gate);
  if (refusal) throw refusal;
  // The decision running now may be taking this very slot (the read above came before its
  // COMMIT): wait for it in memory, outside the queue, and read once more. Losers of a race
  // that arrived before the winner committed are then refused together by one shared read,
  // not one by one under the lock (docs/architecture.md, "Refusals without the lock"). A
  // request for another slot of the owner goes straight to the queue.
  const head = running.get(queueKey);
  if (!head || head.slot !== slot) return;
  await head.done;
  const second = await operation.refuseWithoutLock(db, gate);
  if (second) throw second;
}

/** The `slot` of a claim operation: its start and end. */
export const slotKey = (start: Date, end: Date): string => `${start.getTime()}|${end.getTime()}`;

/** Run a claim operation in a transaction of its own: its value, or its rejection thrown after commit. */
export async function runClaimOperation<T>(db: Db, operation: ClaimOperation<T>): Promise<T> {
  await refuseEarly(db, operation);
  const answer = await runClaimTransaction(db, (tx) => operation.run(tx), operation.queueKey, operation.slot);
  if (!answer.ok) throw answer.error;
  return answer.value;
}

/**
 * Expire the owner's due holds and load the claims within `margin` of [start, end), in one
 * round trip (the update runs first). The default is what a verdict weighs
 * (VERDICT_CLAIMS_MARGIN_MS); a rejection loads the wider range its alternatives need
 * (runClaim).
 */
export function loadAround(tx: Executor, owner: OwnerRef, start: Date, end: Date, now: Date, margin = VERDICT_CLAIMS_MARGIN_MS, gate?: CalendarGate): Promise<LoadedClaim[]> {
  return Promise.all([
    expireDueHolds(tx, owner, now),
    loadClaims(tx, owner, new Date(start.getTime() - margin), new Date(end.getTime() + margin), now, gate),
  ]).then(([, around]) => around);
}

/**
 * A claim on an owner named by email (direct booking, candidate hold): the
 * locked owner with its calendar and meeting class, and the claims around
 * [start, end) with due holds expired, sent as one pipeline. The owner lock
 * is taken first, so the rest reads under it. Errors are loadTarget's (and, with
 * `gate`, CalendarGateNeeded).
 */
export async function loadClaimTarget(
  tx: Executor,
  customerId: string,
  input: { ownerEmail: string; calendarType?: string; meetingClass: string },
  start: Date,
  end: Date,
  now: Date,
  gate?: CalendarGate,
): Promise<{ target: SchedulingTarget; around: LoadedClaim[] }> {
  const owner = { customerId, email: normalizeEmail(input.ownerEmail) };
  const [target, around] = await Promise.all([loadTarget(tx, customerId, input, true), loadAround(tx, owner, start, end, now, VERDICT_CLAIMS_MARGIN_MS, gate)]);
  return { target, around };
}

/**
 * Arbitrate a claim and apply the decision in the caller's transaction (runClaimTransaction):
 * preempt what gives way, insert, notify, and write the audit row; a rejection is audited
 * too and returned, not thrown, so the audit commits. The claim and its audit row are
 * deferred (db/hot/driver.ts): they go out with whatever the caller sends last and COMMIT,
 * and a failing insert (the exclusion constraint) fails the transaction.
 */
export async function runClaim(tx: Tx, request: ClaimRequest): Promise<ClaimResult> {
  const { target, now, claim } = request;
  const start = claim.startAt.getTime();
  const end = claim.endAt.getTime();
  const holdId = claim.holdId ?? null;
  const policy = { start, end, ...request.policy };
  const context = { now: now.getTime(), rules: ownerRules(target.owner), excludeClaimIds: holdId ? [holdId] : undefined };
  let around = request.around ?? (await loadAround(tx, target.owner.id, claim.startAt, claim.endAt, now));
  let decision = arbitrate(policy, { ...context, claims: around });
  if (decision.outcome === 'reject' || decision.outcome === 'counter_propose') {
    // The verdict stands (it depends only on the claims loaded); its alternatives and
    // next_available look up to 72 h further out.
    around = await loadClaims(tx, target.owner.id, new Date(start - ARBITRATION_MARGIN_MS), new Date(end + ARBITRATION_MARGIN_MS), now);
    decision = arbitrate(policy, { ...context, claims: around });
  }
  const actor: AuditActor = request.actor ?? (claim.agentId ? { kind: 'agent', agentId: claim.agentId } : { kind: 'system' });
  const audit = {
    customerId: claim.customerId,
    agentId: claim.agentId ?? null,
    actor,
    ownerId: target.owner.id,
    ownerEmail: target.owner.email,
    action: request.action,
    meetingClass: target.meetingClass.name,
    start: claim.startAt,
    end: claim.endAt,
    holdId,
    idempotencyKey: claim.idempotencyKey ?? null,
    at: now,
  };
  if (decision.outcome !== 'accept') {
    const rejected = rejectionAudit(audit, decision);
    if (request.auditDetails) rejected.details = { ...request.auditDetails, ...rejected.details };
    defer(tx, writeAudit(tx, rejected));
    return { ok: false, error: decisionError(decision, around, { target, policy: request.policy, start, end, now: now.getTime() }) };
  }

  // A hold gives way whole: the ranges of an all_free window hold are one claim (its id is the group's).
  const preempted = givingWay(around.filter((c) => decision.preempt.includes(c.id)));
  if (preempted.length) await preempt(tx, preempted, claim, target, now, { actor, cause: request.action });
  // The hold a confirm promotes leaves the exclusion constraint before its booking enters it (same pipeline, in order).
  if (holdId && request.releaseHoldParts) defer(tx, releaseHoldParts(tx, holdId, 'released', 'released on confirm', now));
  if (holdId) defer(tx, promoteHold(tx, holdId, claim.id, now));
  const preemptedIds = preempted.map((p) => p.id);
  const isHold = claim.kind === 'hold';
  defer(tx, insertClaim(tx, claim));
  defer(tx, writeAudit(tx, { ...audit, outcome: 'accept', holdId: isHold ? claim.id : holdId, bookingId: isHold ? null : claim.id, preemptedBookingIds: preemptedIds, details: request.auditDetails }));
  if (!isHold && claim.agentId) {
    // booking.created / booking.confirmed for the agent's webhook endpoints, committed with the booking (docs/webhooks.md).
    const data = { booking_id: claim.id, ...(holdId ? { hold_id: holdId } : {}), owner_email: target.owner.email, meeting_class: target.meetingClass.name, start: claim.startAt.toISOString(), end: claim.endAt.toISOString() };
    defer(tx, recordWebhookEvent(tx, { agentId: claim.agentId, kind: holdId ? 'booking.confirmed' : 'booking.created', data, now }));
  }
  return { ok: true, row: claimRow(claim), preemptedIds, preemptedClaims: preempted.map((p) => ({ id: p.id, kind: p.kind })), warnings: decision.warnings };
}

/** The audit row of a refused claim: its outcome, reason, and the alternatives its 409 offers. */
export function rejectionAudit(audit: Omit<AuditEntry, 'outcome'>, decision: Exclude<Decision, { outcome: 'accept' }>): AuditEntry {
  return {
    ...audit,
    outcome: decision.outcome === 'counter_propose' ? 'counter_propose' : 'reject',
    reason: decision.outcome === 'past_time' ? 'PAST_TIME' : decision.reason,
    details: decision.outcome === 'past_time' ? undefined : { failed_reason: decision.failedReason, alternatives: alternativesJson(decision.alternatives) },
  };
}

/** The claims that give way, one per claim: ranges of one all_free hold become that hold (its id). */
function givingWay(overlapping: LoadedClaim[]): LoadedClaim[] {
  const seen = new Set<string>();
  const out: LoadedClaim[] = [];
  for (const c of overlapping) {
    const id = c.group ?? c.id;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(c.group ? { ...c, id } : c);
  }
  return out;
}

/**
 * Mark the claims that give way preempted (every range of a hold), tell their agents, and
 * write one `claim.preempt` audit row each, by the decision's actor.
 */
async function preempt(tx: Tx, preempted: LoadedClaim[], claim: NewClaim, target: SchedulingTarget, now: Date, by: { actor: AuditActor; cause: AuditAction }): Promise<void> {
  const ids = preempted.map((p) => p.id);
  const groups = preempted.filter((p) => p.group).map((p) => p.id);
  await tx
    .update(claims)
    .set({ status: 'preempted', statusReason: `preempted by ${target.meetingClass.name}`, preemptedByClaimId: claim.id, updatedAt: now })
    .where(groups.length ? or(inArray(claims.id, ids), inArray(claims.partOfHoldId, groups)) : inArray(claims.id, ids));
  for (const p of preempted) {
    defer(
      tx,
      writeAudit(tx, {
        customerId: claim.customerId,
        agentId: null,
        actor: by.actor,
        ownerId: target.owner.id,
        ownerEmail: target.owner.email,
        action: 'claim.preempt',
        outcome: 'accept',
        reason: `preempted by ${target.meetingClass.name}`,
        meetingClass: p.meetingClass ?? null,
        start: new Date(p.start),
        end: new Date(p.end),
        holdId: p.kind === 'hold' ? p.id : null,
        bookingId: p.kind === 'booking' ? p.id : null,
        details: { claim_kind: p.kind, preempted_by_claim_id: claim.id, preempted_agent_id: p.agentId, cause: by.cause },
        at: now,
      }),
    );
    if (!p.agentId) continue;
    await enqueueNotification(tx, {
      customerId: claim.customerId,
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

/**
 * Run a claiming transaction. The owner lock makes decisions of one owner
 * sequential, so the exclusion constraint fires only against writers that do
 * not take it; then the whole decision runs once more to answer the true
 * reason, and a second collision is answered as NO_CAPACITY, never a 500.
 */
export async function runClaimTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, queueKey?: string, slot?: string): Promise<T> {
  const run = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await runTransaction(db, fn);
      } catch (err) {
        if (!isConstraintViolation(err, PG_EXCLUSION_VIOLATION)) throw err;
        if (attempt >= 1) {
          throw new DomainError('ARBITRATION_REJECTED', 'The slot was just taken by a concurrent request', { reason: 'NO_CAPACITY', extra: { alternatives: [] } });
        }
      }
    }
  };
  return queueKey ? inQueue(queueKey, run, slot) : run();
}

const queues = new Map<string, Promise<void>>();
/** Per key, the slots of the decisions queued or running (and how many of each). */
const queuedSlots = new Map<string, Map<string, number>>();
/** Per key, the decision running now and its slot: `done` settles when it has finished (committed or rolled back). */
const running = new Map<string, { done: Promise<void>; slot?: string }>();

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
export async function inQueue<T>(key: string, fn: () => Promise<T>, slot?: string): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
  const head = { done: mine, slot };
  queues.set(key, mine);
  if (slot) {
    const slots = queuedSlots.get(key) ?? new Map<string, number>();
    slots.set(slot, (slots.get(slot) ?? 0) + 1);
    queuedSlots.set(key, slots);
  }
  try {
    await previous;
    running.set(key, head);
    return await fn();
  } finally {
    done?.();
    if (running.get(key) === head) running.delete(key);
    const slots = slot ? queuedSlots.get(key) : undefined;
    if (slots) {
      const n = (slots.get(slot!) ?? 1) - 1;
      if (n > 0) slots.set(slot!, n);
      else slots.delete(slot!);
      if (!slots.size) queuedSlots.delete(key);
    }
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
