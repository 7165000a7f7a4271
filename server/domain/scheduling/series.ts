/**
 * A recurring series' occurrences (docs/arbitration.md "Recurring series"): the RRULE subset of
 * hard blocks (rrule.ts: FREQ DAILY, WEEKLY or MONTHLY; INTERVAL; BYDAY; BYMONTHDAY; COUNT; UNTIL)
 * expanded from the first occurrence's wall-clock time in the owner's zone, so a weekly 10:00
 * meeting stays at 10:00 local across daylight-saving changes, and each occurrence lasts the first
 * one's real duration.
 *
 * Limits a series is held to, each refused with a SeriesError that says which:
 * - the rule ends: COUNT (at most SERIES_MAX_OCCURRENCES) or UNTIL (at most SERIES_MAX_SPAN_DAYS
 *   after the first occurrence), not both (RFC 5545 3.3.10);
 * - every occurrence starts by the local date SERIES_MAX_SPAN_DAYS after the first (a year);
 * - it makes at most SERIES_MAX_OCCURRENCES occurrences in all (a daily UNTIL a year ahead does not);
 * - the series' start is one of the rule's own occurrences (its weekday is in BYDAY, its day of
 *   the month in BYMONTHDAY): RFC 5545 3.8.5.3 leaves a start the rule does not produce undefined,
 *   and engines disagree on it. The start counts toward COUNT.
 * Pure: no clock, no database.
 */
import { MINUTE, DAY, compatibleInstant, utcOffsetAt } from './localTime';
import { civilFromDays, daysInMonth, weekdayIndex } from './civil';
import { parseRRule, expandRRuleRange, RRuleError, type ParsedRRule } from './rrule';
import type { Interval } from './types';

export const SERIES_MAX_OCCURRENCES = 52;
const SERIES_MAX_SPAN_DAYS = 366;

export class SeriesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeriesError';
  }
}

export type SeriesInput = {
  /** The rule without DTSTART, e.g. "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=12". */
  rrule: string;
  /** The first occurrence (epoch ms). */
  start: number;
  end: number;
  /** The owner's zone, in which the wall-clock time is kept. */
  timeZone: string;
};

export type SeriesOccurrence = Interval & { index: number };

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** The owner-local "YYYY-MM-DDTHH:MM:SS" of an instant. */
/** The owner-local date (epoch day) of an instant. */
const localEpochDay = (timeZone: string, instant: number) => Math.floor((instant + utcOffsetAt(timeZone, instant)) / DAY);

function localDateTime(timeZone: string, instant: number): string {
  const local = new Date(instant + utcOffsetAt(timeZone, instant));
  return `${String(local.getUTCFullYear()).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())}T${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
}

/** Whether the rule itself produces local date `epochDay` (BYDAY and BYMONTHDAY; the period is the start's own). */
function producesDay(rule: ParsedRRule, epochDay: number): boolean {
  const weekday = weekdayIndex(epochDay);
  const { year, month, day } = civilFromDays(epochDay);
  const length = daysInMonth(year, month);
  if (rule.byMonthDay && !rule.byMonthDay.some((d) => (d > 0 ? d : length + 1 + d) === day)) return false;
  if (!rule.byDay) return true;
  const nth = Math.floor((day - 1) / 7) + 1;
  const nthFromEnd = -(Math.floor((length - day) / 7) + 1);
  return rule.byDay.some((b) => b.weekday === weekday && (b.ordinal === 0 || b.ordinal === nth || b.ordinal === nthFromEnd));
}

/** The occurrences of a series, ascending, the first being [start, end). Throws SeriesError. */
export function expandSeries(input: SeriesInput): SeriesOccurrence[] {
  const { start, end, timeZone } = input;
  const rrule = input.rrule.trim().replace(/^RRULE:/i, '');
  if (!(end > start)) throw new SeriesError('a series occurrence must end after it starts');
  if (/(^|;)DTSTART=/i.test(rrule)) throw new SeriesError('recurrence takes no DTSTART: the series starts at start');
  let rule;
  try {
    rule = parseRRule(rrule);
  } catch (err) {
    if (err instanceof RRuleError) throw new SeriesError(err.message);
    throw err;
  }
  if (rule.count === null && rule.until === null) throw new SeriesError(`recurrence must end: give COUNT (at most ${SERIES_MAX_OCCURRENCES}) or UNTIL (at most one year ahead)`);
  if (rule.count !== null && rule.until !== null) throw new SeriesError('recurrence takes COUNT or UNTIL, not both');
  if (rule.count !== null && rule.count > SERIES_MAX_OCCURRENCES) throw new SeriesError(`COUNT is at most ${SERIES_MAX_OCCURRENCES}`);
  if ((end - start) % MINUTE !== 0) throw new SeriesError('a series occurrence lasts whole minutes');
  const dtstart = localDateTime(timeZone, start);
  const startDay = localEpochDay(timeZone, start);
  const until = rule.until;
  const untilDay = until === null ? null : until.kind === 'utc' ? localEpochDay(timeZone, until.ms) : until.epochDay;
  if (!producesDay(rule, startDay)) throw new SeriesError('the series starts on a date its recurrence does not produce (check BYDAY and BYMONTHDAY against the start)');
  if (untilDay !== null && untilDay > startDay + SERIES_MAX_SPAN_DAYS) throw new SeriesError(`UNTIL is at most ${SERIES_MAX_SPAN_DAYS} days after the first occurrence`);
  if (untilDay !== null && untilDay < startDay) throw new SeriesError('UNTIL is before the first occurrence');
  const block = { rrule, dtstart, duration_minutes: (end - start) / MINUTE };
  // A series spans at most a year: every occurrence starts by the local date SERIES_MAX_SPAN_DAYS after the first.
  const intervals = expandRRuleRange(block, timeZone, start, start + (SERIES_MAX_SPAN_DAYS + 2) * DAY).filter(
    (i) => localEpochDay(timeZone, i.start) <= startDay + SERIES_MAX_SPAN_DAYS,
  );
  if (rule.count !== null && intervals.length < rule.count) throw new SeriesError(`this recurrence runs beyond ${SERIES_MAX_SPAN_DAYS} days after the first occurrence; a series spans at most a year`);
  if (intervals.length > SERIES_MAX_OCCURRENCES) throw new SeriesError(`this recurrence makes ${intervals.length} occurrences; a series has at most ${SERIES_MAX_OCCURRENCES}`);
  return intervals.map((i, index) => ({ ...i, index }));
}

/**
 * A series moved by one of its occurrences (reschedule with scope, docs/arbitration.md "Recurring
 * series"): `moved` went from `from` to `to`; every occurrence in `spans` moves by the same
 * wall-clock shift in the owner's zone (days and local time, DST-correct: a weekly 10:00 moved to
 * 11:00 stays at 11:00 local across a change) and takes `to`'s real duration. Pure.
 */
export function shiftSeries(timeZone: string, moved: { from: number; to: Interval }, spans: readonly Interval[]): Interval[] {
  const local = (instant: number) => instant + utcOffsetAt(timeZone, instant);
  const shift = local(moved.to.start) - local(moved.from);
  const duration = moved.to.end - moved.to.start;
  return spans.map((s) => {
    const target = local(s.start) + shift;
    const epochDay = Math.floor(target / DAY);
    const start = compatibleInstant(timeZone, epochDay, Math.round((target - epochDay * DAY) / 1000));
    return { start, end: start + duration };
  });
}
