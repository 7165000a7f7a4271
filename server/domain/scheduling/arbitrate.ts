/**
 * arbitrate(): the booking decision of docs/arbitration.md "Decision order", plus the
 * alternatives carried by every rejection. Pure: `now` comes in through the context.
 */
import { SchedulingContext } from './schedulingContext';
import { evaluateSlot } from './evaluate';
import { HOUR } from './localTime';
import { hardBlockIntervals } from './timeRules';
import { claimsInReach } from './buffers';
import {
  WARNING_WORKING_HOURS_NOT_CONFIGURED,
  type Alternative,
  type AlternativeReasonCode,
  type ArbitrationContext,
  type ArbitrationRequest,
  type Conflict,
  type Claim,
  type Decision,
  type MeetingConflict,
  type OwnerRules,
  type RequestPolicy,
  type RejectReason,
} from './types';

/**
 * Whether a request is accepted, and the first failed reason if not, depends only on the claims
 * within this margin of it: those overlapping it and those on the owner-local days it touches
 * (a local day lasts at most 25 h). Alternatives need the claims ALTERNATIVES_RADIUS_MS further
 * out. So a decision can load the narrow range first and the wide one only when it rejects
 * (tests/unit/scheduling/properties.test.ts checks the verdict is the same).
 */
export const VERDICT_CLAIMS_MARGIN_MS = 26 * HOUR;

/** How far (both directions) alternatives are searched around the requested start. */
export const ALTERNATIVES_RADIUS_MS = 72 * HOUR;
/** Alternatives lie on the owner-local quarter-hour grid. */
const ALTERNATIVES_STEP_MINUTES = 15;
const MAX_ALTERNATIVES = 3;

const REASON_CODES: Record<RejectReason, AlternativeReasonCode> = {
  NO_CAPACITY: 'capacity_conflict',
  WORKING_HOURS: 'working_hours',
  OFF_DAY: 'off_day',
  OUT_OF_OFFICE: 'out_of_office',
  MAX_DAILY_HOURS: 'daily_hours_limit',
  SACRED_MEETING: 'sacred_meeting',
  PERMISSION_DENIED_PREEMPT: 'permission_denied_preempt',
};

/** Failures that turn into a counter-proposal when at least one alternative exists. */
const COUNTER_PROPOSABLE: ReadonlySet<RejectReason> = new Set(['NO_CAPACITY', 'WORKING_HOURS', 'OFF_DAY', 'MAX_DAILY_HOURS']);

export function warningsFor(rules: OwnerRules): string[] {
  return rules.workingHours ? [] : [WARNING_WORKING_HOURS_NOT_CONFIGURED];
}

/**
 * Up to 3 acceptable slots of the request's length nearest to its start: on the owner-local
 * 15-minute grid, starting at or after now and within 72 h (inclusive) of the requested start in
 * either direction. Nearest by |alt.start - request.start|, ties to the earlier one; the result is
 * sorted by start. No two overlap (a slot overlapping a nearer one already offered is passed over,
 * as a `distinct` search does). Each is accepted by evaluateSlot (hence by arbitrate) with the same request.
 */
function findAlternatives(
  ctx: SchedulingContext,
  request: ArbitrationRequest,
  failedReason: RejectReason,
  max = MAX_ALTERNATIVES,
): Alternative[] {
  const length = request.end - request.start;
  const from = Math.max(ctx.now, request.start - ALTERNATIVES_RADIUS_MS);
  const to = request.start + ALTERNATIVES_RADIUS_MS + 1; // inclusive upper bound
  ctx.ensure(from, to + length);
  const grid: number[] = [];
  ctx.table.forEachGridPoint(from, to, ALTERNATIVES_STEP_MINUTES, (t) => (grid.push(t), true));
  // Walk outward from the requested start, nearest first, the earlier one on ties.
  let right = grid.findIndex((t) => t >= request.start);
  if (right < 0) right = grid.length;
  let left = right - 1;
  const found: number[] = [];
  while (found.length < max && (left >= 0 || right < grid.length)) {
    let t: number;
    if (right >= grid.length || (left >= 0 && request.start - grid[left] <= grid[right] - request.start)) t = grid[left--];
    else t = grid[right++];
    if (t === request.start) continue; // the requested slot itself just failed
    // Distinct, like a `distinct` search: no alternative overlaps one already offered (a nearer one).
    if (found.some((f) => t < f + length && f < t + length)) continue;
    if (evaluateSlot(ctx, t, t + length, request).ok) found.push(t);
  }
  const reason_code = REASON_CODES[failedReason];
  return found.sort((a, b) => a - b).map((start) => ({ start, end: start + length, reason_code }));
}

/**
 * The nearest slot of the request's length that arbitrate() accepts for the same request, other
 * than its own start: findAlternatives' search (same grid, radius and order), one slot. A
 * preempted booking's replacement hold takes it (docs/arbitration.md "Bumped meetings rebooked").
 */
export function nearestAlternative(request: ArbitrationRequest, context: ArbitrationContext): { start: number; end: number } | null {
  if (!(request.end > request.start)) throw new RangeError('request end must be after its start');
  const ctx = new SchedulingContext(context.rules, context.claims, context.now, context.excludeClaimIds);
  const [first] = findAlternatives(ctx, request, 'NO_CAPACITY', 1);
  return first ? { start: first.start, end: first.end } : null;
}

function meetingConflict(c: Claim): MeetingConflict {
  if (c.external) return { kind: 'calendar_event', sacred: true };
  if (c.kind === 'hold') return { kind: 'hold' };
  return { kind: 'booking', meeting_class: c.meetingClass ?? null, priority: c.priority === Number.MAX_SAFE_INTEGER ? null : c.priority, sacred: c.sacred };
}

/**
 * What [start, end) collides with, for the `conflicts[]` of a refusal: each hard block by its label
 * (in rule order), then each claim in the way in start order as its kind and class's rank only
 * (never an id, agent, title or attendee): an overlapping one as itself, one only a buffer runs
 * into (the request's or its own, docs/arbitration.md "Buffers") as `buffer` naming it. A hold's
 * several ranges, like repeated identical entries, are named once. Working hours and the daily
 * limit are reasons, not conflicts.
 */
function findConflicts(ctx: SchedulingContext, start: number, end: number, policy: Partial<RequestPolicy> = {}): Conflict[] {
  const out: Conflict[] = [];
  if (ctx.overlapsHardBlock(start, end)) {
    for (const block of ctx.rules.hardBlocks) {
      if (hardBlockIntervals({ ...ctx.rules, hardBlocks: [block] }, start, end).length) out.push({ kind: 'hard_block', label: block.label ?? null });
    }
  }
  for (const c of claimsInReach(ctx, start, end, policy)) {
    if (c.start < end && start < c.end) out.push(meetingConflict(c));
    else out.push({ kind: 'buffer', side: c.end <= start ? 'before' : 'after', meeting: meetingConflict(c) });
  }
  const seen = new Set<string>();
  return out.filter((c) => {
    const key = JSON.stringify(c);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/**
 * Decides a booking request. Order (first failure decides): past -> working day/hours -> hard
 * blocks -> overlapping claims -> daily limit -> accept (preempting lower-priority claims).
 * Throws RangeError when end <= start (the HTTP layer validates before calling).
 */
export function arbitrate(request: ArbitrationRequest, context: ArbitrationContext): Decision {
  if (!(request.end > request.start)) throw new RangeError('request end must be after its start');
  if (request.start < context.now) return { outcome: 'past_time' };
  const ctx = new SchedulingContext(context.rules, context.claims, context.now, context.excludeClaimIds);
  // Each check extends the context's days as far as it looks: an accepted request needs only the
  // days it touches; alternatives widen it to 72 h either side.
  return decide(ctx, request);
}

/** arbitrate() on an existing context (lets callers evaluate many requests with one cache). */
function decide(ctx: SchedulingContext, request: ArbitrationRequest): Decision {
  const warnings = warningsFor(ctx.rules);
  const verdict = evaluateSlot(ctx, request.start, request.end, request);
  if (verdict.ok) return { outcome: 'accept', preempt: verdict.preempt.map((c) => c.id), warnings };
  if (verdict.reason === 'PAST_TIME') return { outcome: 'past_time' };
  const failedReason = verdict.reason;
  const alternatives = findAlternatives(ctx, request, failedReason);
  const counter = COUNTER_PROPOSABLE.has(failedReason) && alternatives.length > 0;
  return {
    outcome: counter ? 'counter_propose' : 'reject',
    reason: counter ? 'COUNTER_PROPOSED' : failedReason,
    failedReason,
    alternatives,
    conflicts: findConflicts(ctx, request.start, request.end, request),
    warnings,
  };
}

