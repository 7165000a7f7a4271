import type { Executor } from '@/db/client';
import { DomainError } from '../../errors';
import { localSpan, type LocalSpan } from '../../scheduling';
import { weeklySlots } from '../repeatWeekly';
import { acceptableSlots, type Interval, type PublicTypeContext } from './schedule';

/** A week of the series that is not free now: its place (0 = the time picked) and its time, UTC and in the host's zone. */
type UnavailableWeek = LocalSpan & { index: number };

/**
 * "Repeat weekly for N weeks" at submission (docs/public-scheduling.md "Repeating weekly"): the
 * first week is the picked time (assertSuggestable checked it); every later week must be a time
 * the type's suggestions would offer too (free, nothing giving way, the type's buffers and the
 * owner's rules). One that is not refuses the request with 409 time_unavailable naming each
 * week not free (`unavailable_occurrences`), so the page can show them and the requester pick
 * another time or fewer weeks. Nothing is claimed here: approval books the series through the
 * claim runner, all or nothing (review/seriesApproval.ts).
 */
export async function assertWeeksFree(db: Executor, ctx: PublicTypeContext, durationMinutes: number, first: Interval, weeks: number, now: Date): Promise<Interval[]> {
  const timeZone = ctx.link.owner.timeZone;
  const slots = weeklySlots(first, weeks, timeZone);
  const unavailable: UnavailableWeek[] = [];
  for (const [index, slot] of slots.entries()) {
    if (index === 0) continue;
    const [found] = await acceptableSlots(db, ctx, durationMinutes, slot, now, 1, { hosts: null });
    if (!found || found.start.getTime() !== slot.start.getTime()) unavailable.push({ index, ...localSpan(slot.start, slot.end, timeZone) });
  }
  if (unavailable.length) {
    throw new DomainError('time_unavailable', `${unavailable.length} of the ${weeks} weeks are not free at this time: nothing was requested; pick another time or fewer weeks (see unavailable_occurrences)`, {
      extra: { unavailable_occurrences: unavailable },
    });
  }
  return slots;
}
