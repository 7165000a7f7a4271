import type { Db } from '@/db/client';
import { claimIdMadeWithKey } from '@/db/hot/claims';
import { normalizeEmail, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { arbitrate, type Decision, type RejectReason, type RequestPolicy } from '../scheduling';
import { writeAuditGrouped, type AuditAction } from '../audit';
import { decisionError, rejectionAudit } from './rejection';
import type { CalendarGate } from '../calendars/mirror';
import { ARBITRATION_MARGIN_MS, loadClaims, loadTarget, ownerRules, requestPolicy, type LoadedClaim, type SchedulingTarget } from './claimTarget';

/**
 * Refusals a plain read can settle: the slot is taken by a claim of higher or equal
 * priority (or a hard block), or by a sacred meeting. Nothing a waiting request could
 * do changes them except a cancellation, and a request answered from a read taken while
 * it was in flight is answered as of that moment.
 */
const SETTLED_BY_A_READ: ReadonlySet<RejectReason> = new Set(['NO_CAPACITY', 'SACRED_MEETING']);

/** A claim on an owner named by email, as an operation describes it before its transaction. */
export type EarlyClaim = {
  action: AuditAction;
  kind: 'hold' | 'booking';
  actor: AgentActor;
  input: { ownerEmail: string; calendarType?: string; meetingClass: string };
  start: Date;
  end: Date;
  now: Date;
  idempotencyKey: string | null;
};

/**
 * The refusal of a claim whose slot a consistent read (one read-only snapshot, no lock)
 * already shows taken, with its audit row written; or null, and the claim goes the locked
 * way (docs/architecture.md, "Deciding on time"). This only ever refuses: every acceptance
 * is decided under the owner lock, with the exclusion constraint behind it. Losers of a
 * race that arrive after the winner committed answer here, without queueing for the
 * owner (inQueue) or its row lock. The 409 is the locked path's: the verdict and its
 * alternatives come from the same arbitration over the same range of claims
 * (ARBITRATION_MARGIN_MS). Skipped when the agent already made a claim with this
 * Idempotency-Key (the retry must find it, not be refused by it), and whenever the read
 * raises an error (the locked path answers it).
 */
export async function refuseWithoutLock(db: Db, claim: EarlyClaim, gate?: CalendarGate): Promise<DomainError | null> {
  const { actor, input, start, end, now } = claim;
  const owner = { customerId: actor.customerId, email: normalizeEmail(input.ownerEmail) };
  // With the calendar gate, a mirror the gate would sync first refuses nothing (the locked way syncs it).
  const shape = `${owner.customerId}|${owner.email}|${input.meetingClass}|${input.calendarType ?? ''}|${start.getTime()}|${end.getTime()}|${gate?.freshMs ?? ''}`;
  const [made, read] = await Promise.all([
    claim.idempotencyKey ? claimIdMadeWithKey(db, actor.agentId, claim.idempotencyKey, claim.kind, now) : undefined,
    sharedRead(shape, () => readSnapshot(db, actor.customerId, input, owner, start, end, gate)),
  ]);
  if (made || !read) return null;
  const { target } = read;
  const policy = requestPolicy(actor, target);
  const policyKey = `${policy.priority}|${policy.preemptPolicy}|${policy.agentCanPreempt}|${policy.bufferBeforeMs ?? 0}|${policy.bufferAfterMs ?? 0}`;
  let verdict = read.verdicts.get(policyKey);
  if (!verdict) {
    verdict = judge(read, policy, start, end);
    read.verdicts.set(policyKey, verdict);
  }
  if (!verdict) return null;
  await writeAuditGrouped(
    db,
    rejectionAudit(
      {
        customerId: actor.customerId,
        agentId: actor.agentId,
        ownerId: target.owner.id,
        ownerEmail: target.owner.email,
        action: claim.action,
        meetingClass: target.meetingClass.name,
        start,
        end,
        holdId: null,
        idempotencyKey: claim.idempotencyKey,
        at: now,
      },
      verdict.decision,
    ),
  );
  const e = verdict.error;
  return new DomainError(e.code, e.message, { reason: e.reason, extra: e.extra });
}

/**
 * One owner's shared snapshot and the refusal it settles, if any (`decision`; no audit row, no
 * Idempotency-Key look-up), or null when the read fails (the locked way answers it): a group claim (groupService.ts) is refused when any of its owners is
 * (docs/groups.md). Racers naming the same owner, class and slot share the read.
 */
export async function ownerRefusalWithoutLock(
  db: Db,
  actor: AgentActor,
  input: EarlyClaim['input'],
  start: Date,
  end: Date,
): Promise<{ target: SchedulingTarget; around: LoadedClaim[]; decision: Exclude<Decision, { outcome: 'accept' }> | null; now: number } | null> {
  const owner = { customerId: actor.customerId, email: normalizeEmail(input.ownerEmail) };
  const shape = `${owner.customerId}|${owner.email}|${input.meetingClass}|${input.calendarType ?? ''}|${start.getTime()}|${end.getTime()}|`;
  const read = await sharedRead(shape, () => readSnapshot(db, actor.customerId, input, owner, start, end, undefined));
  if (!read) return null;
  const policy = requestPolicy(actor, read.target);
  const policyKey = `${policy.priority}|${policy.preemptPolicy}|${policy.agentCanPreempt}|${policy.bufferBeforeMs ?? 0}|${policy.bufferAfterMs ?? 0}`;
  let verdict = read.verdicts.get(policyKey);
  if (verdict === undefined) {
    verdict = judge(read, policy, start, end);
    read.verdicts.set(policyKey, verdict);
  }
  return { target: read.target, around: read.around, decision: verdict?.decision ?? null, now: read.at };
}

type Refusal = { decision: Exclude<Decision, { outcome: 'accept' }>; error: DomainError };
type Snapshot = { target: SchedulingTarget; around: LoadedClaim[]; at: number; verdicts: Map<string, Refusal | null> };

/**
 * The target and the claims +-98 h (with the provider busy time, as the locked path weighs it) in one
 * read-only snapshot, or null when the read raises a domain error (the locked path answers it; with
 * `gate`, also when the calendar gate has work to do).
 */
async function readSnapshot(
  db: Db,
  customerId: string,
  input: EarlyClaim['input'],
  owner: { customerId: string; email: string },
  start: Date,
  end: Date,
  gate: CalendarGate | undefined,
): Promise<Snapshot | null> {
  // The read's own clock: later than the arrival of every request that shares it (sharedRead).
  const at = new Date();
  try {
    return await db.transaction(
      async (tx) => {
        const [target, around] = await Promise.all([
          loadTarget(tx, customerId, input, false),
          loadClaims(tx, owner, new Date(start.getTime() - ARBITRATION_MARGIN_MS), new Date(end.getTime() + ARBITRATION_MARGIN_MS), at, gate),
        ]);
        return { target, around, at: at.getTime(), verdicts: new Map() };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
}

/** The refusal a snapshot settles for this policy, or null (accept, or a reason only the lock may settle). */
function judge(read: Snapshot, policy: RequestPolicy, start: Date, end: Date): Refusal | null {
  const { target, around } = read;
  const decision = arbitrate({ start: start.getTime(), end: end.getTime(), ...policy }, { now: read.at, rules: ownerRules(target.owner), claims: around });
  if (decision.outcome !== 'reject' && decision.outcome !== 'counter_propose') return null;
  if (!SETTLED_BY_A_READ.has(decision.failedReason)) return null;
  return { decision, error: decisionError(decision, around, { target, policy, start: start.getTime(), end: end.getTime(), now: read.at }) };
}

/**
 * Reads shared by concurrent requests for the same slot (same owner, class, calendar and
 * times): a request joins a read that has not started yet, or starts one; never one that
 * started before it arrived, so every answer comes from a snapshot taken while the request
 * was in flight. At most one read per slot runs and one waits; a burst of N losers costs
 * a few reads, and the verdict and its alternatives are computed once per read and policy.
 */
type Slot = { queued: { promise: Promise<Snapshot | null>; start: () => void } | null };
const flights = new Map<string, Slot>();

function sharedRead(key: string, read: () => Promise<Snapshot | null>): Promise<Snapshot | null> {
  const slot = flights.get(key);
  if (!slot) {
    const fresh: Slot = { queued: null };
    flights.set(key, fresh);
    return run(key, fresh, read);
  }
  if (!slot.queued) {
    let start!: () => void;
    const promise = new Promise<Snapshot | null>((resolve, reject) => {
      start = () => void run(key, slot, read).then(resolve, reject);
    });
    slot.queued = { promise, start };
  }
  return slot.queued.promise;
}

function run(key: string, slot: Slot, read: () => Promise<Snapshot | null>): Promise<Snapshot | null> {
  const p = Promise.resolve().then(read);
  const next = () => {
    const q = slot.queued;
    if (q) {
      slot.queued = null;
      q.start();
    } else flights.delete(key);
  };
  p.then(next, next);
  return p;
}
