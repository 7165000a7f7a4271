import type { Db } from '@/db/client';
import type { AgentActor } from '../access';
import { DomainError } from '../errors';
import { arbitrate, capPerDay, DEFAULT_MAX_RESULTS, distinctSlots, localSpan, searchSlots, timeZoneName, type NoSlotsReason, type AlternativeReasonCode, type RejectReason, type Conflict } from '../scheduling';
import { ARBITRATION_MARGIN_MS, loadClaims, loadTarget, ownerRules, requestPolicy } from './claimTarget';
import { alternativesJson } from './rejection';
import { timed, type SearchClock } from './searchClock';
import { assertBookingSpan, DEFAULT_LOOKAHEAD_HOURS, MAX_LOOKAHEAD_HOURS, noSlotsError, validateWindow, type NoSlotsContext } from './windows';

/** The most slots one window's search yields (the max_results bound of the request schema). */
const MAX_SEARCH_RESULTS = 500;

const HOUR = 3_600_000;
const DAY_MARGIN = 26 * HOUR;

export type AvailabilityInput = {
  ownerEmail: string;
  meetingClass: string;
  calendarType?: string;
  durationMinutes: number;
  window: { start: Date; end: Date };
  /** Several windows (up to 14) searched as one: the union of their slots (docs/api.md "Search"). */
  windows?: { start: Date; end: Date }[];
  /** Keep only slots that do not overlap an earlier kept one (earliest first). */
  distinct?: boolean;
  /** At most this many slots starting on each owner-local day (docs/api.md "Options a person can choose from"). */
  maxPerDay?: number;
  stepMinutes?: number;
  maxResults?: number;
  lookaheadHours?: number;
};

export type AvailabilityResult = {
  owner_email: string;
  time_zone: string;
  slots: { start: string; end: string; start_local: string; end_local: string; preempts: boolean }[];
  warnings?: string[];
};

/**
 * Candidate slots for one owner: every slot returned is one arbitration would
 * accept for this agent right now. Reads only the claims inside the window
 * (plus a day either side for daily limits), through the GiST index.
 */
export async function searchAvailability(db: Db, actor: AgentActor, input: AvailabilityInput, now: Date, clock?: SearchClock): Promise<AvailabilityResult> {
  const lookaheadHours = input.lookaheadHours ?? DEFAULT_LOOKAHEAD_HOURS;
  if (lookaheadHours > MAX_LOOKAHEAD_HOURS) {
    throw new DomainError('LOOKAHEAD_EXCEEDS_MAXIMUM', `next_available_lookahead_hours may be at most ${MAX_LOOKAHEAD_HOURS}`, { extra: { maximum_lookahead_hours: MAX_LOOKAHEAD_HOURS } });
  }
  const target = await timed(clock, 'look-ups', () => loadTarget(db, actor.customerId, input, false));
  const windows = input.windows?.length ? input.windows : [input.window];
  for (const w of windows) validateWindow(w, input.durationMinutes, now);
  const { owner } = target;
  const rules = ownerRules(owner);
  const policy = requestPolicy(actor, target);
  const maxResults = input.maxResults ?? DEFAULT_MAX_RESULTS;
  const found = new Map<string, { start: number; end: number; preempts: boolean }>();
  const warnings = new Set<string>();
  let first: { reason: NoSlotsReason; common: Omit<NoSlotsContext, 'window' | 'lookaheadHours' | 'loadClaims'>; warnings: string[] } | undefined;
  for (const window of windows) {
    const claims = await timed(clock, 'fact load', () => loadClaims(db, owner.id, new Date(window.start.getTime() - DAY_MARGIN), new Date(window.end.getTime() + DAY_MARGIN), now));
    const common = { rules, claims, now: now.getTime(), durationMinutes: input.durationMinutes, request: policy };
    const result = timed(clock, 'grid walk', () =>
      searchSlots({
        ...common,
        window: { start: window.start.getTime(), end: window.end.getTime() },
        stepMinutes: input.stepMinutes,
        // distinct and max_per_day drop slots after the search, so they ask for the most the core gives.
        maxResults: input.distinct || input.maxPerDay ? MAX_SEARCH_RESULTS : maxResults,
      }),
    );
    for (const w of result.warnings) warnings.add(w);
    for (const slot of result.slots) found.set(`${slot.start}|${slot.end}`, slot);
    if (result.slots.length === 0 && !first) first = { reason: result.noSlots?.reason_code ?? 'NO_FREE_SLOTS', common, warnings: result.warnings };
  }
  let slots = [...found.values()].sort((a, b) => a.start - b.start || a.end - b.end);
  if (input.distinct) slots = distinctSlots(slots);
  if (input.maxPerDay) slots = capPerDay(slots, input.maxPerDay, owner.timeZone);
  slots = slots.slice(0, maxResults);
  if (slots.length === 0) {
    const window = windows[0];
    const f = first!;
    throw await timed(clock, 'next_available', () =>
      noSlotsError(f.reason, { ...f.common, window, lookaheadHours, stepMinutes: input.stepMinutes, loadClaims: (from, to) => loadClaims(db, owner.id, from, to, now) }, f.warnings),
    );
  }
  return timed(clock, 'answer', () => {
    const out: AvailabilityResult = {
      owner_email: owner.email,
      time_zone: timeZoneName(owner.timeZone),
      slots: slots.map((s) => ({ ...localSpan(s.start, s.end, owner.timeZone), preempts: s.preempts })),
    };
    if (warnings.size) out.warnings = [...warnings];
    return out;
  });
}

export type EvaluateResult = {
  outcome: 'accept' | 'reject' | 'counter_propose';
  reason?: RejectReason | 'COUNTER_PROPOSED' | 'PAST_TIME';
  alternatives: { start: string; end: string; start_local?: string; end_local?: string; reason_code: AlternativeReasonCode }[];
  conflicts?: Conflict[];
  would_preempt: string[];
  warnings?: string[];
};

/** POST /v1/arbitration/evaluate: the decision a booking would get now, with no side effect and no audit row. */
export async function evaluateBooking(
  db: Db,
  actor: AgentActor,
  input: { ownerEmail: string; meetingClass: string; calendarType?: string; start: Date; end: Date },
  now: Date,
): Promise<EvaluateResult> {
  assertBookingSpan(input.start, input.end); // exactly the booking's check: evaluate simulates a booking
  const target = await loadTarget(db, actor.customerId, input, false);
  const start = input.start.getTime();
  const end = input.end.getTime();
  const claims = await loadClaims(db, target.owner.id, new Date(start - ARBITRATION_MARGIN_MS), new Date(end + ARBITRATION_MARGIN_MS), now);
  const decision = arbitrate({ start, end, ...requestPolicy(actor, target) }, { now: now.getTime(), rules: ownerRules(target.owner), claims });
  if (decision.outcome === 'past_time') return { outcome: 'reject', reason: 'PAST_TIME', alternatives: [], would_preempt: [] };
  if (decision.outcome === 'accept') {
    const bookings = new Set(claims.filter((c) => c.kind === 'booking').map((c) => c.id));
    const res: EvaluateResult = { outcome: 'accept', alternatives: [], would_preempt: decision.preempt.filter((id) => bookings.has(id)) };
    if (decision.warnings.length) res.warnings = decision.warnings;
    return res;
  }
  const res: EvaluateResult = {
    outcome: decision.outcome,
    reason: decision.reason,
    alternatives: alternativesJson(decision.alternatives, target.owner.timeZone),
    conflicts: decision.conflicts,
    would_preempt: [],
  };
  if (decision.warnings.length) res.warnings = decision.warnings;
  return res;
}
