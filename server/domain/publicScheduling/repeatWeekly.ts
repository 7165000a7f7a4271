import { expandSeries, SeriesError } from '../scheduling/series';
import { invalidField } from '../errors';

/**
 * "Repeat weekly for N weeks" on a public meeting type (docs/public-scheduling.md "Repeating
 * weekly"): the requester's time, then the same local time in the host's zone every week, N
 * meetings in all: the series FREQ=WEEKLY;COUNT=N, expanded by the one series expansion
 * (scheduling/series.ts, DST-correct). Pure: no clock, no database.
 */

/** The fewest weeks a requester may ask for (a type offers 2 to 52: server/schemas/publicAdmin.ts, migration 0044). */
const REPEAT_MIN_WEEKS = 2;

/** The series' rule for N weeks. */
export function weeklyRule(weeks: number): string {
  return `FREQ=WEEKLY;COUNT=${weeks}`;
}

/** The N meetings of "weekly for N weeks" from `slot`, in `timeZone` (the host's), first one `slot` itself. */
export function weeklySlots(slot: { start: Date; end: Date }, weeks: number, timeZone: string): { start: Date; end: Date }[] {
  try {
    return expandSeries({ rrule: weeklyRule(weeks), start: slot.start.getTime(), end: slot.end.getTime(), timeZone }).map((o) => ({ start: new Date(o.start), end: new Date(o.end) }));
  } catch (err) {
    if (err instanceof SeriesError) throw invalidField('repeat_weeks', err.message);
    throw err;
  }
}

/**
 * Whether a type offers `weeks` (null: one meeting, always offered): the type's
 * `repeat_weekly_max_weeks` is set, `weeks` is within 2 and it, and the type has one host (a
 * collective or pool type does not repeat; docs/public-scheduling.md "Repeating weekly").
 * Else 400 invalid_request on `repeat_weeks`.
 */
export function checkRepeatWeeks(type: { repeatWeeklyMaxWeeks: number | null; hostMode: string }, weeks: number | null | undefined): number | null {
  if (weeks === null || weeks === undefined) return null;
  if (type.repeatWeeklyMaxWeeks === null || type.hostMode !== 'single') throw invalidField('repeat_weeks', 'this meeting type does not offer repeating weekly');
  if (!Number.isInteger(weeks) || weeks < REPEAT_MIN_WEEKS || weeks > type.repeatWeeklyMaxWeeks) {
    throw invalidField('repeat_weeks', `must be a whole number of weeks from ${REPEAT_MIN_WEEKS} to ${type.repeatWeeklyMaxWeeks}`);
  }
  return weeks;
}
