/**
 * Owner rules turned into real time: working intervals, working days, hard blocks, daily minutes.
 * All local-time semantics (DST gaps/folds, 23/25 h days) are those of localTime.ts.
 */
import { parseLocalTime } from './civil';
import { clipIntervals, mergeIntervals } from './intervals';
import { DayTable, DAY, MINUTE, localDayBounds, type LocalDay } from './localTime';
import { expandRRuleBlock } from './rruleMemo';
import type { Claim, DateOverride, HardBlock, Interval, LocalRange, OutOfOffice, OwnerRules } from './types';

export { localDayBounds };

/** Date overrides by local date, built once per rules' list. */
const overrideMaps = new WeakMap<readonly DateOverride[], Map<string, LocalRange[]>>();

function overridesByDate(list: readonly DateOverride[]): Map<string, LocalRange[]> {
  let map = overrideMaps.get(list);
  if (!map) overrideMaps.set(list, (map = new Map(list.map((o) => [o.date, o.working_hours]))));
  return map;
}

/** The out-of-office range containing this local day, if any (docs/arbitration.md "Out of office"). */
export function outOfOfficeOn(rules: OwnerRules, day: LocalDay): OutOfOffice | undefined {
  if (!rules.outOfOffice?.length) return undefined;
  const date = day.date.toString(); // YYYY-MM-DD compares as text
  return rules.outOfOffice.find((r) => r.start <= date && date <= r.end);
}

/** The out-of-office range on a local day [start, end) touches, if any; and the first instant after it. */
export function outOfOfficeAt(rules: OwnerRules, start: number, end: number): { range: OutOfOffice; after: number } | undefined {
  if (!rules.outOfOffice?.length) return undefined;
  const table = new DayTable(rules.timeZone);
  table.ensure(start, end);
  const [a, b] = table.dayRange(start, end);
  for (let i = a; i <= b; i++) {
    const range = outOfOfficeOn(rules, table.days[i]);
    if (!range) continue;
    let day = table.days[i];
    while (day.date.toString() < range.end) {
      table.ensure(day.end, day.end);
      day = table.dayAt(day.end);
    }
    return { range, after: day.end };
  }
  return undefined;
}

/**
 * Whether the owner is out of office at `now`, and until when: the range of today's local date,
 * joined with any range that starts the day after it ends (so "away until" is the last away day of
 * an unbroken absence), and the first instant after it (docs/public-scheduling.md "Away").
 */
export function awayAt(rules: OwnerRules, now: number): { start: string; end: string; note?: string; back: number } | undefined {
  const first = outOfOfficeAt(rules, now, now + 1);
  if (!first) return undefined;
  let { range, after } = first;
  let end = range.end;
  for (let next = outOfOfficeAt(rules, after, after + 1), hops = 0; next && hops < 400; next = outOfOfficeAt(rules, after, after + 1), hops++) {
    ({ range, after } = next);
    if (range.end > end) end = range.end;
  }
  return { start: first.range.start, end, ...(first.range.note ? { note: first.range.note } : {}), back: after };
}

/** Whether the rules restrict time of day at all: working hours configured, or away days. */
export function hasTimeRules(rules: OwnerRules): boolean {
  return Boolean(rules.workingHours || rules.outOfOffice?.length);
}

/**
 * The working ranges of one local day: none while out of office, its date override's when it has one (docs/arbitration.md
 * "Date overrides"), else its weekday's. Configured working hours only.
 */
function dayRanges(rules: OwnerRules, day: LocalDay): LocalRange[] {
  if (outOfOfficeOn(rules, day)) return [];
  if (rules.dateOverrides?.length) {
    const override = overridesByDate(rules.dateOverrides).get(day.date.toString());
    if (override) return override;
  }
  return rules.workingHours?.[day.weekday] ?? [];
}

/** True when the owner has at least one working range on that local day (or no working hours configured). */
export function dayIsWorking(rules: OwnerRules, day: LocalDay): boolean {
  if (!rules.workingHours) return true;
  return dayRanges(rules, day).length > 0;
}

/**
 * Working intervals of one local day, merged. Empty ranges (start >= end after mapping, e.g. a
 * 02:00-03:00 range on a spring-forward day) disappear. Requires configured working hours.
 */
function dayWorkingIntervals(table: DayTable, rules: OwnerRules, day: LocalDay): Interval[] {
  // Without working hours a day is whole working time, unless the owner is away.
  if (!rules.workingHours) return outOfOfficeOn(rules, day) ? [] : [{ start: day.start, end: day.end }];
  const ranges = dayRanges(rules, day);
  const out: Interval[] = [];
  for (const r of ranges) {
    const a = parseLocalTime(r.start);
    const b = parseLocalTime(r.end, true);
    if (b <= a) continue; // invalid range (start must be before end): ignored
    out.push({ start: table.wallTimeInstant(day, a), end: table.wallTimeInstant(day, b) });
  }
  return mergeIntervals(out);
}

/**
 * Real instants of working time intersecting [from, to) (none on out-of-office days), merged (a range ending at 24:00 merges with
 * one starting at 00:00 the next day) and clipped to [from, to). With workingHours null the whole
 * range is working time.
 */
export function workingIntervals(rules: OwnerRules, from: number, to: number): Interval[] {
  if (!(to > from)) return [];
  if (!hasTimeRules(rules)) return [{ start: from, end: to }];
  const table = new DayTable(rules.timeZone);
  table.ensure(from, to);
  return clipIntervals(workingIntervalsOfTable(table, rules, table.indexOf(from), table.indexOf(to)), from, to);
}

/** Merged working intervals of days [i0, i1] of a table (unclipped). */
export function workingIntervalsOfTable(table: DayTable, rules: OwnerRules, i0: number, i1: number): Interval[] {
  const all: Interval[] = [];
  for (let i = i0; i <= i1; i++) all.push(...dayWorkingIntervals(table, rules, table.days[i]));
  return mergeIntervals(all);
}

/** Is the owner-local day containing `instant` a working day? Always true without working hours. */
export function isWorkingDay(rules: OwnerRules, instant: number): boolean {
  if (!rules.workingHours) return true;
  return dayIsWorking(rules, new DayTable(rules.timeZone).dayAt(instant));
}

/**
 * Hard-block intervals of the table's days [i0, i1] (plus blocks from day i0-1 running past
 * midnight) and of RRULE blocks intersecting [from, to). Merged, unclipped.
 * A weekly block whose end is not after its start (22:00-06:00) runs into the next local day.
 */
export function hardBlocksOfTable(table: DayTable, rules: OwnerRules, from: number, to: number): Interval[] {
  const out: Interval[] = [];
  const weekly = rules.hardBlocks.filter((b): b is Extract<HardBlock, { days: unknown }> => 'days' in b);
  if (weekly.length) {
    table.ensure(from - DAY, to);
    const i0 = table.indexOf(from - 1);
    const i1 = table.indexOf(to);
    for (let i = Math.max(0, i0 - 1); i <= i1; i++) {
      const day = table.days[i];
      for (const block of weekly) {
        if (!block.days.includes(day.weekday)) continue;
        const a = parseLocalTime(block.start);
        const b = parseLocalTime(block.end, true);
        const start = table.wallTimeInstant(day, a);
        let end: number;
        if (b > a) end = table.wallTimeInstant(day, b);
        else {
          table.ensure(day.end, day.end);
          end = table.wallTimeInstant(table.days[i + 1], b);
        }
        if (end > start) out.push({ start, end });
      }
    }
  }
  for (const block of rules.hardBlocks) {
    if ('rrule' in block) out.push(...expandRRuleBlock(block, rules.timeZone, from, to));
  }
  return mergeIntervals(out);
}

/** Hard-block time (weekly ranges + RRULE occurrences) within [from, to): merged and clipped. */
export function hardBlockIntervals(rules: OwnerRules, from: number, to: number): Interval[] {
  if (!(to > from)) return [];
  const table = new DayTable(rules.timeZone);
  return clipIntervals(hardBlocksOfTable(table, rules, from, to), from, to);
}

/**
 * Milliseconds a claim counts toward the daily limit of the local day [dayStart, dayEnd).
 *
 * Choice: a claim counts only its part on that day (a booking 23:00-01:00 counts 60 min on each
 * day), capped at its countedMinutes. For bookings and candidate holds countedMinutes equals the
 * claimed span, so this is exactly the overlap. A window hold counts min(duration, its part of the
 * held window on that day): wherever the meeting finally lands, it cannot use more of that day.
 */
function claimMsOnDay(claim: Pick<Claim, 'start' | 'end' | 'countedMinutes'>, dayStart: number, dayEnd: number): number {
  const overlap = Math.min(claim.end, dayEnd) - Math.max(claim.start, dayStart);
  if (overlap <= 0) return 0;
  return Math.min(overlap, Math.max(0, claim.countedMinutes) * MINUTE);
}

/**
 * Milliseconds the given claims count on the local day [dayStart, dayEnd): each its claimMsOnDay,
 * except that the ranges of one group (an `all_free` window hold's several stretches) count
 * together, capped once at the group's countedMinutes: the meeting lands in one of them.
 * `drop`: claim ids or groups left out (what a decision would preempt).
 */
export function claimsMsOnDay(
  claims: Iterable<Pick<Claim, 'id' | 'start' | 'end' | 'countedMinutes' | 'group'>>,
  dayStart: number,
  dayEnd: number,
  drop?: ReadonlySet<string>,
): number {
  let ms = 0;
  let groups: Map<string, { ms: number; cap: number }> | undefined;
  for (const c of claims) {
    if (drop && drop.has(c.group ?? c.id)) continue;
    if (!c.group) {
      ms += claimMsOnDay(c, dayStart, dayEnd);
      continue;
    }
    const overlap = Math.min(c.end, dayEnd) - Math.max(c.start, dayStart);
    if (overlap <= 0) continue;
    groups ??= new Map();
    const g = groups.get(c.group) ?? { ms: 0, cap: Math.max(0, c.countedMinutes) * MINUTE };
    g.ms += overlap;
    groups.set(c.group, g);
  }
  if (groups) for (const g of groups.values()) ms += Math.min(g.ms, g.cap);
  return ms;
}

/**
 * Minutes booked on the local day [dayStart, dayEnd) by the given claims (see claimsMsOnDay).
 * When dayEnd is omitted the owner-local day containing dayStart is used (via timeZone).
 */
export function bookedMinutesOnLocalDay(
  claims: readonly Claim[],
  timeZone: string,
  dayStart: number,
  dayEnd?: number,
  excludeIds: readonly string[] = [],
): number {
  let start = dayStart;
  let end = dayEnd;
  if (end === undefined) ({ start, end } = localDayBounds(timeZone, dayStart));
  return claimsMsOnDay(claims, start, end, excludeIds.length ? new Set(excludeIds) : undefined) / MINUTE;
}
