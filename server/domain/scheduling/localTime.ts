/**
 * Owner-local days, computed with Temporal in the owner's IANA zone.
 *
 * DST rules used everywhere in the scheduling core (documented in docs/arbitration.md):
 * - A local day runs from the first instant of its date to the first instant of the next date
 *   (Temporal's start-of-day), so it lasts 23 h on spring-forward days and 25 h on fall-back days.
 * - A wall-clock time "HH:MM" on a date maps to the FIRST instant at which the owner's clock shows
 *   that time or later ("first crossing"):
 *     * an ordinary time maps to its only instant;
 *     * a repeated time (fall-back fold) maps to its earlier occurrence;
 *     * a non-existent time (spring-forward gap) maps to the transition instant, i.e. the first
 *       instant after the gap. So on 2026-03-29 in Europe/Berlin a 02:00-03:00 range collapses to
 *       nothing, and 01:00-04:00 yields 01:00+01:00 .. 04:00+02:00 (2 real hours);
 *     * "24:00" maps to the start of the next local day.
 *   The map is monotone, so a local range [a, b) becomes one contiguous real interval.
 * - Offsets and transitions always come from Temporal (tzdb); no offset is ever assumed.
 */
import { Temporal } from 'temporal-polyfill';
import { civilFromDays, daysFromCivil } from './civil';
import { lowerBound } from './intervals';
import { WEEKDAYS, type Weekday } from './types';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** A stretch of a local day with one constant UTC offset. */
type OffsetSegment = { start: number; end: number; offsetMs: number };

export type LocalDay = {
  /** Days since 1970-01-01 of the local date. */
  epochDay: number;
  date: Temporal.PlainDate;
  weekday: Weekday;
  /** First instant of the local date. */
  start: number;
  /** First instant of the next local date. */
  end: number;
  segments: OffsetSegment[];
  /** Memo: minute-of-day -> instant (see wallTimeInstant). */
  boundaries: Map<number, number>;
  /** Memo: the neighbouring local days, once looked up. */
  previous?: LocalDay;
  next?: LocalDay;
};

function plainDateOf(timeZone: string, instant: number): Temporal.PlainDate {
  return Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(timeZone).toPlainDate();
}

function buildDay(timeZone: string, date: Temporal.PlainDate, start: number, end: number): LocalDay {
  const segments: OffsetSegment[] = [];
  let zdt = Temporal.Instant.fromEpochMilliseconds(start).toZonedDateTimeISO(timeZone);
  let cur = start;
  for (;;) {
    const offsetMs = zdt.offsetNanoseconds / 1e6;
    const next = zdt.getTimeZoneTransition('next');
    if (next && next.epochMilliseconds < end) {
      segments.push({ start: cur, end: next.epochMilliseconds, offsetMs });
      cur = next.epochMilliseconds;
      zdt = next;
    } else {
      segments.push({ start: cur, end, offsetMs });
      break;
    }
  }
  return {
    epochDay: daysFromCivil(date.year, date.month, date.day),
    date,
    weekday: WEEKDAYS[date.dayOfWeek - 1],
    start,
    end,
    segments,
    boundaries: new Map(),
  };
}

function startOfDay(timeZone: string, date: Temporal.PlainDate): number {
  return date.toZonedDateTime({ timeZone }).epochMilliseconds;
}

/**
 * Local days are the same for every call (zone rules do not change while the process runs), so
 * they are built once per zone and date and shared; the cache is bounded and simply starts over
 * when full. A LocalDay's only mutable part, the `boundaries` memo, is deterministic too.
 */
const DAY_CACHE_LIMIT = 50_000;
const dayCache = new Map<string, LocalDay>();
const validZones = new Set<string>();

function localDay(timeZone: string, date: Temporal.PlainDate): LocalDay {
  const key = `${timeZone}|${date.year}-${date.month}-${date.day}`;
  let day = dayCache.get(key);
  if (!day) {
    day = buildDay(timeZone, date, startOfDay(timeZone, date), startOfDay(timeZone, date.add({ days: 1 })));
    if (dayCache.size >= DAY_CACHE_LIMIT) {
      dayCache.clear();
      daysByUtcDay.clear();
    }
    dayCache.set(key, day);
    for (let d = Math.floor(day.start / DAY); d <= Math.floor((day.end - 1) / DAY); d++) {
      const k = `${timeZone}|${d}`;
      const list = daysByUtcDay.get(k);
      if (list) list.push(day);
      else daysByUtcDay.set(k, [day]);
    }
  }
  return day;
}

/** Cached local days by the UTC day (days since the epoch) they overlap, to find an instant's day without Temporal. */
const daysByUtcDay = new Map<string, LocalDay[]>();

/** The local day containing `instant`. */
function localDayAt(timeZone: string, instant: number): LocalDay {
  const known = daysByUtcDay.get(`${timeZone}|${Math.floor(instant / DAY)}`)?.find((d) => d.start <= instant && instant < d.end);
  return known ?? localDay(timeZone, plainDateOf(timeZone, instant));
}

function previousDay(timeZone: string, day: LocalDay): LocalDay {
  return (day.previous ??= localDay(timeZone, day.date.subtract({ days: 1 })));
}

function nextDay(timeZone: string, day: LocalDay): LocalDay {
  return (day.next ??= localDay(timeZone, day.date.add({ days: 1 })));
}

/**
 * A contiguous, lazily extended run of owner-local days (one instance per pure call; the days
 * themselves come from the shared cache above, so Temporal works on a zone and date once).
 */
export class DayTable {
  readonly days: LocalDay[] = [];

  constructor(readonly timeZone: string) {
    // Validates the zone early with a clear error.
    if (validZones.has(timeZone)) return;
    try {
      Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(timeZone);
    } catch {
      throw new RangeError(`invalid IANA time zone "${timeZone}"`);
    }
    validZones.add(timeZone);
  }

  /** Makes sure the table covers every local day touching [from, to]. */
  ensure(from: number, to: number): void {
    const tz = this.timeZone;
    if (this.days.length === 0) this.days.push(localDayAt(tz, from));
    while (this.days[0].start > from) this.days.unshift(previousDay(tz, this.days[0]));
    while (this.days[this.days.length - 1].end <= to) this.days.push(nextDay(tz, this.days[this.days.length - 1]));
  }

  get from(): number {
    return this.days.length ? this.days[0].start : NaN;
  }

  get to(): number {
    return this.days.length ? this.days[this.days.length - 1].end : NaN;
  }

  /** Index (into `days`) of the local day containing the instant; extends the table if needed. */
  indexOf(instant: number): number {
    this.ensure(instant, instant);
    const days = this.days;
    return lowerBound(days.length, (i) => days[i].end > instant);
  }

  dayAt(instant: number): LocalDay {
    return this.days[this.indexOf(instant)];
  }

  /** Indices of the local days touched by [start, end) (end exclusive; end > start). */
  dayRange(start: number, end: number): [number, number] {
    const a = this.indexOf(start);
    const b = this.indexOf(Math.max(start, end - 1));
    return [a, b];
  }

  /**
   * The instant of wall-clock `minuteOfDay` (0..1440) on `day`, by the first-crossing rule in the
   * module comment. Uses Temporal with disambiguation 'earlier' (earlier occurrence in a fold); a
   * time that does not exist (the result's wall time differs from the one asked for) is mapped to
   * the transition that ends the gap.
   */
  wallTimeInstant(day: LocalDay, minuteOfDay: number): number {
    if (minuteOfDay <= 0) return day.start;
    if (minuteOfDay >= 1440) return day.end;
    const memo = day.boundaries.get(minuteOfDay);
    if (memo !== undefined) return memo;
    const hour = Math.floor(minuteOfDay / 60);
    const minute = minuteOfDay % 60;
    const pdt = day.date.toPlainDateTime({ hour, minute });
    const zdt = pdt.toZonedDateTime(this.timeZone, { disambiguation: 'earlier' });
    let result = zdt.epochMilliseconds;
    if (zdt.hour !== hour || zdt.minute !== minute || !zdt.toPlainDate().equals(day.date)) {
      // Non-existent local time: 'earlier' moved it back before the gap; the first instant at which
      // the clock shows this time or later is the transition that ends the gap.
      const transition = zdt.getTimeZoneTransition('next');
      result = transition ? transition.epochMilliseconds : result;
    }
    result = Math.min(Math.max(result, day.start), day.end);
    day.boundaries.set(minuteOfDay, result);
    return result;
  }

  /**
   * Calls `visit(t)` for every instant t in [from, to) whose owner-local wall-clock time is a whole
   * multiple of `stepMinutes` after local midnight of its date, in increasing order; stops when visit
   * returns false. On a fall-back day a repeated wall time yields both of its instants; on a
   * spring-forward day the non-existent wall times yield none. Offsets come from Temporal (per
   * day segment), so the arithmetic below never assumes an offset.
   * Returns false when stopped early. `visit` may extend the table (either way): each day is
   * found again after its visits, so none is walked twice.
   */
  forEachGridPoint(from: number, to: number, stepMinutes: number, visit: (t: number) => boolean): boolean {
    if (!(to > from)) return true;
    const stepMs = stepMinutes * MINUTE;
    let i = this.indexOf(from);
    this.ensure(from, to);
    while (i < this.days.length && this.days[i].start < to) {
      const day = this.days[i];
      const wallMidnight = day.epochDay * DAY; // the date's 00:00 on the wall clock, as a number
      for (const seg of day.segments) {
        const lo = Math.max(seg.start, from);
        const hi = Math.min(seg.end, to);
        if (hi <= lo) continue;
        const k0 = Math.ceil((lo + seg.offsetMs - wallMidnight) / stepMs);
        for (let k = Math.max(0, k0); ; k++) {
          const wall = wallMidnight + k * stepMs;
          if (wall >= wallMidnight + DAY) break;
          const t = wall - seg.offsetMs;
          if (t >= hi) break;
          if (!visit(t)) return false;
        }
      }
      i = this.indexAfter(day, i);
    }
    return true;
  }

  /** The index of the day after `day`, which was at index `i` before days were added in front of it. */
  private indexAfter(day: LocalDay, i: number): number {
    return (this.days[i] === day ? i : this.days.indexOf(day)) + 1;
  }
}

/**
 * The UTC offset (ms) in force in `timeZone` at `instant`, from the cached local day's offset
 * segments (Temporal's tzdb offsets, computed once per zone and date): formatting many instants of
 * one answer in the owner's zone costs a map look-up each, not a Temporal conversion.
 */
export function utcOffsetAt(timeZone: string, instant: number): number {
  const day = localDayAt(timeZone, instant);
  const seg = day.segments.find((s) => s.start <= instant && instant < s.end) ?? day.segments[day.segments.length - 1];
  return seg.offsetMs;
}

/** The owner-local day containing `instant`: 23 h / 25 h long on DST days. */
export function localDayBounds(timeZone: string, instant: number): { start: number; end: number } {
  const table = new DayTable(timeZone);
  const day = table.dayAt(instant);
  return { start: day.start, end: day.end };
}

/** Memo: the UTC offset of a local date when it is the same all day, null on a day with a transition (or one at its midnight). */
const constantOffsets = new Map<string, number | null>();

function constantOffset(timeZone: string, epochDay: number): number | null {
  const key = `${timeZone}|${epochDay}`;
  let offset = constantOffsets.get(key);
  if (offset === undefined) {
    const c = civilFromDays(epochDay);
    const day = localDay(timeZone, Temporal.PlainDate.from({ year: c.year, month: c.month, day: c.day }));
    // One offset, and the wall clock runs 00:00 to 24:00 once (no gap or fold at either midnight).
    const only = day.segments.length === 1 ? day.segments[0].offsetMs : null;
    offset = only !== null && day.start + only === epochDay * DAY && day.end - day.start === DAY ? only : null;
    if (constantOffsets.size >= DAY_CACHE_LIMIT) constantOffsets.clear();
    constantOffsets.set(key, offset);
  }
  return offset;
}

/**
 * The instant of local date `epochDay` at wall-clock `second` by RFC 5545 3.3.5 (Temporal's
 * 'compatible'): a time in a fold is its first occurrence, a time in a gap is read with the offset
 * from before the gap. On a day with one offset throughout (nearly every day) that is plain
 * arithmetic; Temporal decides only on transition days. Used for RRULE occurrences.
 */
export function compatibleInstant(timeZone: string, epochDay: number, second: number): number {
  const offset = constantOffset(timeZone, epochDay);
  if (offset !== null) return epochDay * DAY + second * 1000 - offset;
  const c = civilFromDays(epochDay);
  return Temporal.PlainDateTime.from({ year: c.year, month: c.month, day: c.day, hour: Math.floor(second / 3600), minute: Math.floor(second / 60) % 60, second: second % 60 })
    .toZonedDateTime(timeZone, { disambiguation: 'compatible' }).epochMilliseconds;
}
