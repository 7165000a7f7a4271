import type { Tx } from '@/db/client';
import type { NewClaim } from '@/db/hot/claims';
import type { CalendarGate } from '../../calendars/mirror';
import { keepSeries, loadAround, runClaim, type ClaimRequest, type ClaimResult, type SchedulingTarget } from '../../claims';
import { DomainError } from '../../errors';
import { newId } from '../../ids';
import { localSpan, type RequestPolicy } from '../../scheduling';
import { weeklyRule, weeklySlots } from '../repeatWeekly';
import { approvalDecision, requireConfirmedPreemption } from './approvalRules';

type Slot = { start: Date; end: Date };
type Accepted = Extract<ClaimResult, { ok: true }>;

/** What an approval of a weekly request books: every meeting, each accepted one's row and what it moved aside. */
export type SeriesBooked = { ok: true; seriesId: string; rule: string; results: Accepted[] };

/**
 * An approval (the owner's, or a type's "book instantly") of a request for "weekly for N
 * weeks" (docs/public-scheduling.md "Repeating weekly"): the series FREQ=WEEKLY;COUNT=N from the
 * approved time in the owner's zone, booked in the approval's transaction through runClaim,
 * one claim per meeting carrying the series' id (claims.series_id, as POST /v1/bookings with
 * `recurrence` books; the rule kept in claim_series, so the attendees get the series' one
 * invitation), all or nothing:
 * - first every meeting is arbitrated on the claims around it as they stand; any refused one
 *   refuses the whole approval (ARBITRATION_REJECTED with `refused_occurrences`), nothing booked;
 * - what the meetings would move aside must all be confirmed by the owner (as for one meeting);
 * - then each is claimed in turn (seeing the ones before it), behind the type's allocation check;
 *   a refusal then (a daily or weekly limit the earlier meetings used up) rolls everything back.
 * `book(tx, claim, around)` runs the approval's own runClaim request for one meeting.
 */
export async function bookWeeklySeries(
  tx: Tx,
  ctx: { target: SchedulingTarget; policy: RequestPolicy; first: Slot; weeks: number; now: Date; gate?: CalendarGate; confirmPreemption?: string[] },
  meeting: (slot: Slot) => NewClaim,
  request: (claim: NewClaim, around: ClaimRequest['around']) => ClaimRequest,
  beforeEach: (slot: Slot) => Promise<void>,
): Promise<SeriesBooked | { ok: false; error: DomainError }> {
  const { target, policy, now } = ctx;
  const owner = target.owner;
  const slots = weeklySlots(ctx.first, ctx.weeks, owner.timeZone);
  const arounds = await Promise.all(slots.map((s) => loadAround(tx, owner.id, s.start, s.end, now, undefined, ctx.gate)));
  const verdicts = slots.map((s, i) => approvalDecision(owner, policy, s, arounds[i], now));
  const refused = slots.flatMap((s, index) => {
    const v = verdicts[index];
    return v.verdict === 'refused' ? [{ index, ...localSpan(s.start, s.end, owner.timeZone), reason: v.reason ?? 'NO_CAPACITY' }] : [];
  });
  if (refused.length) {
    const message = `${refused.length} of the ${slots.length} weekly meetings are not free: nothing was booked (see refused_occurrences)`;
    return { ok: false, error: new DomainError('ARBITRATION_REJECTED', message, { reason: refused[0].reason, extra: { alternatives: [], conflicts: [], refused_occurrences: refused } }) };
  }
  await requireConfirmedPreemption(tx, [...new Set(verdicts.flatMap((v) => v.ids))], ctx.confirmPreemption);
  const seriesId = newId(now.getTime());
  const results: Accepted[] = [];
  for (const [i, slot] of slots.entries()) {
    await beforeEach(slot);
    // Read again: the meetings claimed before this one count toward its day and week.
    const around = i === 0 ? arounds[0] : await loadAround(tx, owner.id, slot.start, slot.end, now, undefined, ctx.gate);
    const r = await runClaim(tx, request({ ...meeting(slot), seriesId }, around));
    // All or nothing: a refusal now (a limit the earlier meetings used up) rolls the whole series back.
    if (!r.ok) throw r.error;
    results.push(r);
  }
  const rule = weeklyRule(ctx.weeks);
  keepSeries(tx, { id: seriesId, customerId: owner.customerId, rule, timeZone: owner.timeZone, first: slots[0], now });
  return { ok: true, seriesId, rule, results };
}
