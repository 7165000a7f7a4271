import type { Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import type { HoldActor } from '../access';
import type { DomainError } from '../errors';
import { newId } from '../ids';
import { findHoldStretches, type Interval, type RequestPolicy } from '../scheduling';
import { writeAudit } from '../audit';
import { insertClaim, type NewClaim } from './claimStore';
import { ARBITRATION_MARGIN_MS, loadAround, ownerRules, requestPolicy, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { decisionStamp } from './standingDecision';

/**
 * Hold rows, and the window hold of a claim of one or more owners (docs/groups.md "Group holds
 * and bookings"): a single owner's window hold is a group of one, and both take this path.
 */

/** The most free stretches one all_free window hold claims (the earliest ones). */
const MAX_HELD_WINDOWS = 100;

/**
 * What a window hold weighs: only genuinely free time (it never preempts), so its search, its
 * stretches and its next_available all refuse a slot another claim sits on, whatever its rank.
 */
export function freeTimeOnly(policy: RequestPolicy): RequestPolicy {
  return { ...policy, agentCanPreempt: false, preemptPolicy: 'never' };
}

/** A window hold's range: its coverage, and for a further range of an all_free hold, the hold it belongs to. */
export type HoldRangeSpec = { coverage: 'first_fit' | 'all_free'; partOf?: string };

/** A new hold row of `target` (with `groupId`: a member of a group hold, docs/groups.md). */
export function newHold(
  base: { actor: HoldActor; target: SchedulingTarget; scope: 'candidate' | 'window'; ttlMs: number; now: Date; idempotencyKey: string | null; groupId?: string; stamped?: boolean },
  start: Date,
  end: Date,
  durationMinutes: number,
  range?: HoldRangeSpec,
): NewClaim {
  const { actor, target, now } = base;
  return {
    id: newId(now.getTime()),
    customerId: actor.customerId,
    ownerId: target.owner.id,
    calendarId: target.calendar.id,
    agentId: actor.agentId,
    meetingClassId: target.meetingClass.id,
    kind: 'hold',
    status: 'active',
    startAt: start,
    endAt: end,
    holdScope: base.scope,
    durationMinutes,
    expiresAt: new Date(now.getTime() + base.ttlMs),
    coverage: range?.coverage ?? null,
    partOfHoldId: range?.partOf ?? null,
    groupId: base.groupId ?? null,
    // The class's buffers (docs/arbitration.md "Buffers"); runClaim sets the same from the policy.
    bufferBeforeMinutes: target.meetingClass.bufferBeforeMinutes,
    bufferAfterMinutes: target.meetingClass.bufferAfterMinutes,
    // The key names the hold's own row only (claimMadeWithKey finds the hold, not a range).
    idempotencyKey: range?.partOf ? null : base.idempotencyKey,
    // What the decision was taken on, for its confirm (docs/arbitration.md "Confirm: when the hold's decision stands").
    ...(base.stamped ? decisionStamp(target.owner, target.meetingClass) : {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** The stretches of at least `lengthMs` free for every owner: the intersection of each owner's free stretches. */
export function commonStretches(perOwner: readonly (readonly Interval[])[], lengthMs: number): Interval[] {
  let common: Interval[] = [...(perOwner[0] ?? [])];
  for (const list of perOwner.slice(1)) {
    const next: Interval[] = [];
    for (const a of common) {
      for (const b of list) {
        const start = Math.max(a.start, b.start);
        const end = Math.min(a.end, b.end);
        if (end > start) next.push({ start, end });
      }
    }
    common = next;
  }
  return common.filter((r) => r.end - r.start >= lengthMs).sort((a, b) => a.start - b.start);
}

/** Members in owner-id order: the order their claims are written in (one order for every claim). */
export function inOwnerOrder<P extends { target: SchedulingTarget }>(plans: readonly P[]): P[] {
  return [...plans].sort((a, b) => (a.target.owner.id < b.target.owner.id ? -1 : a.target.owner.id > b.target.owner.id ? 1 : 0));
}

/** What every hold.create audit row of a member names: who asked, the owner, the class, the key. */
export function holdAuditBase(actor: HoldActor, target: SchedulingTarget, idempotencyKey: string | null, now: Date) {
  return { customerId: actor.customerId, agentId: actor.agentId, ownerId: target.owner.id, ownerEmail: target.owner.email, action: 'hold.create' as const, meetingClass: target.meetingClass.name, idempotencyKey, at: now };
}

/** A window hold of N >= 1 owners (their targets locked by the caller, in the order named). */
export type WindowHoldSpec = {
  actor: HoldActor;
  targets: readonly SchedulingTarget[];
  window: { start: Date; end: Date };
  durationMinutes: number;
  coverage: 'first_fit' | 'all_free';
  ttlMs: number;
  now: Date;
  idempotencyKey: string | null;
  /** A group of two or more: the members' shared group id (in each audit row's details). */
  groupId?: string;
  /** The decision stamp a single hold's confirm checks (docs/arbitration.md "Confirm: when the hold's decision stands"). */
  stamped?: boolean;
  auditDetails?: Record<string, unknown>;
  /** Hold only `durationMinutes` at the start of the earliest stretch (a waitlist offer, docs/arbitration.md "Waitlist"), not the whole stretch. */
  durationOnly?: boolean;
};

/** What a refused window hold weighs for its answer: each member's free stretches, claims around and (free-time) policy. */
export type WindowFacts = { perOwner: Interval[][]; arounds: LoadedClaim[][]; policies: RequestPolicy[] };

/** A member's held window: its hold row and the further ranges of an all_free hold. */
type HeldWindow = { target: SchedulingTarget; claim: NewClaim; parts: NewClaim[] };

/** The claim runner's Answer of held windows, spelt out: the waitlist's offer (run by the runner) places holds here. */
type WindowAnswer = { ok: true; value: HeldWindow[] } | { ok: false; error: DomainError };

/**
 * Take the stretches of the window free for EVERY member (genuinely free time only, never
 * preempting): the earliest (`first_fit`) or up to MAX_HELD_WINDOWS (`all_free`: the first on
 * each member's hold row, the others as rows naming it in part_of_hold_id), one accept audit row
 * per member, written in owner-id order. None: `refuse` answers (and audits) the refusal. The
 * members come back in the order named.
 */
export async function holdWindow(tx: Tx, spec: WindowHoldSpec, refuse: (facts: WindowFacts) => Promise<DomainError>): Promise<WindowAnswer> {
  const { actor, targets, window, durationMinutes, coverage, now } = spec;
  const arounds = await Promise.all(targets.map((t) => loadAround(tx, t.owner.id, window.start, window.end, now, ARBITRATION_MARGIN_MS)));
  const policies = targets.map((t) => freeTimeOnly(requestPolicy(actor, t)));
  const most = coverage === 'all_free' ? MAX_HELD_WINDOWS : 1;
  // One owner: its own stretches are the common ones, and the search stops at the most it holds.
  const perOwner = targets.map((t, i) =>
    findHoldStretches({ rules: ownerRules(t.owner), claims: arounds[i], now: now.getTime(), durationMinutes, request: policies[i], window: { start: window.start.getTime(), end: window.end.getTime() } }, targets.length === 1 ? most : Infinity),
  );
  const lengthMs = durationMinutes * 60_000;
  const common = commonStretches(perOwner, lengthMs)
    .slice(0, most)
    .map((r) => (spec.durationOnly ? { start: r.start, end: r.start + lengthMs } : r));
  if (!common.length) return { ok: false, error: await refuse({ perOwner, arounds, policies }) };
  const hold = (target: SchedulingTarget, r: Interval, range: HoldRangeSpec) =>
    newHold({ actor, target, scope: 'window', ttlMs: spec.ttlMs, now, idempotencyKey: spec.idempotencyKey, groupId: spec.groupId, stamped: spec.stamped }, new Date(r.start), new Date(r.end), durationMinutes, range);
  const details: Record<string, unknown> = { ...spec.auditDetails, ...(spec.groupId ? { group_id: spec.groupId } : {}), window: { start: window.start.toISOString(), end: window.end.toISOString() }, duration_minutes: durationMinutes };
  if (coverage === 'all_free') Object.assign(details, { coverage, held_windows: common.map((r) => ({ start: new Date(r.start).toISOString(), end: new Date(r.end).toISOString() })) });
  const held = new Map<SchedulingTarget, HeldWindow>();
  for (const { target } of inOwnerOrder(targets.map((target) => ({ target })))) {
    const claim = hold(target, common[0], { coverage });
    const parts = common.slice(1).map((r) => hold(target, r, { coverage, partOf: claim.id }));
    defer(tx, insertClaim(tx, claim));
    for (const part of parts) defer(tx, insertClaim(tx, part));
    defer(
      tx,
      writeAudit(tx, { ...holdAuditBase(actor, target, spec.idempotencyKey, now), outcome: 'accept', start: claim.startAt, end: claim.endAt, holdId: claim.id, details }),
    );
    held.set(target, { target, claim, parts });
  }
  return { ok: true, value: targets.map((t) => held.get(t)!) };
}
