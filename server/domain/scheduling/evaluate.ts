/**
 * The arbitration rules, one function per step of docs/arbitration.md "Decision order".
 * evaluateSlot() composes them in the contract's order (first failure decides); the slot search
 * reuses the same functions, so there is exactly one implementation of each rule.
 */
import type { SchedulingContext } from './schedulingContext';
import { HOUR } from './localTime';
import { dayIsWorking, outOfOfficeOn } from './timeRules';
import { claimsInReach } from './buffers';
import type { Claim, RejectReason, RequestPolicy } from './types';

/** The step of the decision order at which a slot failed. */
export type FailedStage = 'past' | 'working' | 'hardBlock' | 'claims' | 'daily';

export type SlotVerdict =
  | { ok: true; preempt: Claim[] }
  | { ok: false; reason: RejectReason | 'PAST_TIME'; stage: FailedStage };

/** Step 1: a start before now is PAST_TIME (422). A start exactly at now is allowed. */
function isPast(ctx: SchedulingContext, start: number): boolean {
  return start < ctx.now;
}

/**
 * Step 2. No local day the interval touches may be out of office (else OUT_OF_OFFICE,
 * docs/arbitration.md "Out of office"). Every local day the interval touches must be a working day (else OFF_DAY), and the whole
 * interval must lie inside ONE merged working interval (else WORKING_HOURS). Merging joins a range
 * ending at 24:00 with one starting at 00:00 the next day, so overnight shifts work.
 * Always passes when working hours are not configured.
 */
function checkWorkingTime(ctx: SchedulingContext, start: number, end: number): 'OUT_OF_OFFICE' | 'OFF_DAY' | 'WORKING_HOURS' | null {
  if (ctx.rules.outOfOffice?.length) {
    ctx.ensure(start, end);
    const [a, b] = ctx.table.dayRange(start, end);
    for (let i = a; i <= b; i++) if (outOfOfficeOn(ctx.rules, ctx.table.days[i])) return 'OUT_OF_OFFICE';
  }
  if (!ctx.rules.workingHours) return null;
  ctx.ensure(start, end);
  const [a, b] = ctx.table.dayRange(start, end);
  for (let i = a; i <= b; i++) if (!dayIsWorking(ctx.rules, ctx.table.days[i])) return 'OFF_DAY';
  const w = ctx.workingIntervalAt(start);
  return w && end <= w.end ? null : 'WORKING_HOURS';
}

/** Step 3: overlapping a hard block is NO_CAPACITY. */
function checkHardBlocks(ctx: SchedulingContext, start: number, end: number): 'NO_CAPACITY' | null {
  return ctx.overlapsHardBlock(start, end) ? 'NO_CAPACITY' : null;
}

/**
 * Step 4: each claim in the way in start order (overlapping the slot, or within the slot's or the
 * claim's buffers: buffers.ts); the first failure decides. Sacred ->
 * SACRED_MEETING; priority >= ours -> NO_CAPACITY; lower but the agent lacks `preempt` ->
 * PERMISSION_DENIED_PREEMPT; lower but our policy is `never` -> NO_CAPACITY. Otherwise the claim
 * would be preempted.
 */
function checkClaims(
  ctx: SchedulingContext,
  start: number,
  end: number,
  policy: RequestPolicy,
): { ok: true; preempt: Claim[] } | { ok: false; reason: RejectReason } {
  const preempt: Claim[] = [];
  for (const claim of claimsInReach(ctx, start, end, policy)) {
    if (claim.sacred) return { ok: false, reason: 'SACRED_MEETING' };
    if (claim.priority >= policy.priority) return { ok: false, reason: 'NO_CAPACITY' };
    if (!policy.agentCanPreempt) return { ok: false, reason: 'PERMISSION_DENIED_PREEMPT' };
    if (policy.preemptPolicy === 'never') return { ok: false, reason: 'NO_CAPACITY' };
    preempt.push(claim);
  }
  return { ok: true, preempt };
}

/**
 * Step 5: for every local day the interval touches, booked ms that day (claimsMsOnDay of every
 * active claim but the preempted ones and their groups: a hold gives way whole), plus our part of
 * that day, must not exceed maxDailyMeetingHours. Exactly reaching the limit is allowed.
 */
export function checkDailyLimit(ctx: SchedulingContext, start: number, end: number, preempt: readonly Claim[]): boolean {
  const max = ctx.rules.maxDailyMeetingHours;
  if (max === null || max === undefined) return true;
  const limitMs = Math.round(max * HOUR);
  ctx.ensure(start, end);
  const [a, b] = ctx.table.dayRange(start, end);
  const drop = preempt.length ? new Set(preempt.map((p) => p.group ?? p.id)) : undefined;
  for (let i = a; i <= b; i++) {
    const day = ctx.table.days[i];
    let ms = ctx.claims.bookedMsOnDay(day.start, day.end, drop);
    ms += Math.min(end, day.end) - Math.max(start, day.start);
    if (ms > limitMs) return false;
  }
  return true;
}

export type SlotRefusal = Extract<SlotVerdict, { ok: false }>;

/**
 * Steps 1-3: the first failure, or null when the slot passes them. Reads only the clock and the
 * rules' calendar (zone, working hours, hard blocks), never the claims or the request, so owners
 * sharing a RulesCalendar and the clock share it (group.ts explainNoGroupSlots).
 */
export function checkClockAndRules(ctx: SchedulingContext, start: number, end: number): SlotRefusal | null {
  if (isPast(ctx, start)) return { ok: false, reason: 'PAST_TIME', stage: 'past' };
  const working = checkWorkingTime(ctx, start, end);
  if (working) return { ok: false, reason: working, stage: 'working' };
  if (checkHardBlocks(ctx, start, end)) return { ok: false, reason: 'NO_CAPACITY', stage: 'hardBlock' };
  return null;
}

/** Steps 4-5, for a slot that passed steps 1-3. */
export function checkClaimsAndLimit(ctx: SchedulingContext, start: number, end: number, policy: RequestPolicy): SlotVerdict {
  const claims = checkClaims(ctx, start, end, policy);
  if (!claims.ok) return { ok: false, reason: claims.reason, stage: 'claims' };
  if (!checkDailyLimit(ctx, start, end, claims.preempt)) return { ok: false, reason: 'MAX_DAILY_HOURS', stage: 'daily' };
  return { ok: true, preempt: claims.preempt };
}

/** Runs steps 1-5 in order. ok=true means arbitrate() accepts, preempting `preempt`. */
export function evaluateSlot(ctx: SchedulingContext, start: number, end: number, policy: RequestPolicy): SlotVerdict {
  return checkClockAndRules(ctx, start, end) ?? checkClaimsAndLimit(ctx, start, end, policy);
}
