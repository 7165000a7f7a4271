/**
 * Slot search for availability, next_available and window holds. Every slot returned is one
 * arbitrate() would accept with the same request: candidates go through evaluateSlot() (the same
 * rule implementation arbitrate uses).
 */
import { SchedulingContext } from './schedulingContext';
import { checkDailyLimit, evaluateSlot } from './evaluate';
import { mergeIntervals, subtractIntervals } from './intervals';
import { MINUTE } from './localTime';
import { warningsFor } from './arbitrate';
import { reachesWithin } from './buffers';
import type { Claim, Interval, NoSlotsReason, OwnerRules, RequestPolicy, Slot } from './types';

export const DEFAULT_STEP_MINUTES = 15;
export const DEFAULT_MAX_RESULTS = 50;

type Common = {
  rules: OwnerRules;
  claims: readonly Claim[];
  now: number;
  durationMinutes: number;
  request: RequestPolicy;
  excludeClaimIds?: string[];
};

export type SearchSlotsParams = Common & {
  window: Interval;
  /** Grid step; slots start at owner-local multiples of it after local midnight. Default 15. */
  stepMinutes?: number;
  /** Default 50. */
  maxResults?: number;
};

export type SearchSlotsResult = {
  slots: Slot[];
  warnings: string[];
  /** Present exactly when slots is empty. */
  noSlots?: { reason_code: NoSlotsReason };
};

function durationMs(minutes: number): number {
  const ms = minutes * MINUTE;
  if (!(ms > 0) || !Number.isFinite(ms)) throw new RangeError('durationMinutes must be positive');
  return ms;
}

function stepOf(step: number | undefined): number {
  const s = step ?? DEFAULT_STEP_MINUTES;
  if (!(s > 0) || !Number.isInteger(s)) throw new RangeError('stepMinutes must be a positive integer');
  return s;
}

/** True when the window is shorter than the duration (WINDOW_TOO_NARROW, 422). */
export function windowTooNarrow(window: Interval, durationMinutes: number): boolean {
  return window.end - window.start < durationMinutes * MINUTE;
}

/**
 * Acceptable slots of `durationMinutes` lying wholly inside `window` and starting at or after now,
 * in start order, at most maxResults. When there are none, `noSlots.reason_code` is chosen by this
 * precedence over the grid candidates that were examined:
 *   OFF_DAY           every candidate fell on a non-working day;
 *   WORKING_HOURS     no candidate lay inside working hours (some were on working days);
 *   HARD_BLOCK        every candidate inside working hours overlapped a hard block;
 *   DAILY_HOURS_LIMIT every candidate clear of hard blocks would break the daily limit (counted
 *                     without preemption credit when the candidate is not free of claims anyway);
 *   NO_FREE_SLOTS     otherwise (the calendar is busy), and also when no candidate fits at all
 *                     (window in the past, or too short once clipped to now).
 */
export function searchSlots(params: SearchSlotsParams): SearchSlotsResult {
  const { rules, now, window, request } = params;
  const length = durationMs(params.durationMinutes);
  const step = stepOf(params.stepMinutes);
  const maxResults = params.maxResults ?? DEFAULT_MAX_RESULTS;
  const warnings = warningsFor(rules);
  const ctx = new SchedulingContext(rules, params.claims, now, params.excludeClaimIds);
  const from = Math.max(window.start, now);
  const lastStart = window.end - length;
  const slots: Slot[] = [];
  let candidates = 0;
  let sawWorkingDay = false;
  let sawOutOfOffice = false;
  let passedWorking = false;
  let passedHardBlocks = false;
  let dailyCouldPass = false;
  if (lastStart >= from && maxResults > 0) {
    ctx.ensure(from, window.end);
    ctx.table.forEachGridPoint(from, lastStart + 1, step, (t) => {
      candidates++;
      const end = t + length;
      const verdict = evaluateSlot(ctx, t, end, request);
      if (verdict.ok) {
        slots.push({ start: t, end, preempts: verdict.preempt.length > 0 });
        return slots.length < maxResults;
      }
      if (verdict.stage === 'working') {
        if (verdict.reason === 'WORKING_HOURS') sawWorkingDay = true;
        if (verdict.reason === 'OUT_OF_OFFICE') sawOutOfOffice = true;
        return true;
      }
      passedWorking = true;
      if (verdict.stage === 'hardBlock') return true;
      passedHardBlocks = true;
      if (verdict.stage === 'claims' && checkDailyLimit(ctx, t, end, [])) dailyCouldPass = true;
      return true;
    });
  }
  if (slots.length > 0) return { slots, warnings };
  let reason_code: NoSlotsReason;
  if (candidates === 0) reason_code = 'NO_FREE_SLOTS';
  else if (!passedWorking) reason_code = sawWorkingDay ? 'WORKING_HOURS' : sawOutOfOffice ? 'OUT_OF_OFFICE' : 'OFF_DAY';
  else if (!passedHardBlocks) reason_code = 'HARD_BLOCK';
  else if (!dailyCouldPass) reason_code = 'DAILY_HOURS_LIMIT';
  else reason_code = 'NO_FREE_SLOTS';
  return { slots: [], warnings, noSlots: { reason_code } };
}

export type NextAvailableParams = Common & {
  /** Usually window.start. */
  from: number;
  /** The latest start accepted, inclusive: usually window.end + lookaheadHours * 3600e3. */
  latestStart: number;
  stepMinutes?: number;
};

/**
 * The earliest acceptable slot (same grid and rules as searchSlots) starting at or after
 * max(from, now) and no later than latestStart (the slot may end after it); hard blocks, busy
 * time, off days are skipped. Null if none.
 */
export function nextAvailable(params: NextAvailableParams): Interval | null {
  const length = durationMs(params.durationMinutes);
  const step = stepOf(params.stepMinutes);
  const ctx = new SchedulingContext(params.rules, params.claims, params.now, params.excludeClaimIds);
  const from = Math.max(params.from, params.now);
  if (!(params.latestStart >= from)) return null;
  ctx.ensure(from, params.latestStart + length);
  let found: Interval | null = null;
  // The grid walk's end is exclusive; instants are whole milliseconds, so + 1 includes latestStart itself.
  ctx.table.forEachGridPoint(from, params.latestStart + 1, step, (t) => {
    if (!evaluateSlot(ctx, t, t + length, params.request).ok) return true;
    found = { start: t, end: t + length };
    return false;
  });
  return found;
}

export type HoldStretchParams = Common & { window: Interval };

/**
 * The stretch a `first_fit` window hold claims: the earliest maximal contiguous stretch of
 * [max(window.start, now), window.end) that is working time (merged; everything when not
 * configured), outside hard blocks and free of EVERY active claim and of its buffers and the
 * request's (docs/arbitration.md "Buffers"; choice: window holds never
 * preempt, they only take genuinely free time), at least durationMinutes long, and containing a
 * slot arbitrate() accepts (checked at the stretch's start and at each local midnight inside it, so
 * the daily limit is honoured). Null when no stretch qualifies.
 */
export function findHoldStretch(params: HoldStretchParams): Interval | null {
  return findHoldStretches(params, 1)[0] ?? null;
}

/**
 * Every stretch findHoldStretch would consider, in start order (at most `limit`): what an
 * `all_free` window hold claims. Each is checked on its own, as findHoldStretch checks the first;
 * the hold counts its duration once, so the daily limit of one stretch does not depend on the
 * others.
 */
export function findHoldStretches(params: HoldStretchParams, limit = Infinity): Interval[] {
  const length = durationMs(params.durationMinutes);
  const ctx = new SchedulingContext(params.rules, params.claims, params.now, params.excludeClaimIds);
  const from = Math.max(params.window.start, params.now);
  const to = params.window.end;
  if (to - from < length) return [];
  ctx.ensure(from, to);
  // Claims with their buffers and the request's (buffers.ts): the stretch keeps clear of both.
  const busy = mergeIntervals([...ctx.hardBlocksWithin(from, to), ...reachesWithin(ctx, from, to, params.request)]);
  const free = subtractIntervals(ctx.workingWithin(from, to), busy);
  const out: Interval[] = [];
  for (const stretch of free) {
    if (out.length >= limit) break;
    if (stretch.end - stretch.start < length) continue;
    const starts = [stretch.start];
    const [a, b] = ctx.table.dayRange(stretch.start, stretch.end);
    for (let i = a + 1; i <= b; i++) {
      const dayStart = ctx.table.days[i].start;
      if (dayStart + length <= stretch.end) starts.push(dayStart);
    }
    if (starts.some((s) => evaluateSlot(ctx, s, s + length, params.request).ok)) {
      out.push({ start: stretch.start, end: stretch.end });
    }
  }
  return out;
}
