/**
 * Owner rules turned into real time: working intervals, working days, hard blocks, daily minutes.
 * All local-time semantics (DST gaps/folds, 23/25 h days) are those of localTime.ts.
 */
import { parseLocalTime } from './civil';
import { clipIntervals, mergeIntervals } from './intervals';
import { DayTable, DAY, MINUTE, localDayBounds, type LocalDay } from './localTime';
import { expandRRuleBlock } from './rruleMemo';
import type { Claim, HardBlock, Interval, OwnerRules } from './types';

export { localDayBounds };

/** True when the owner has at least one working range on that weekday (or no working hours configured). */
export function dayIsWorking(rules: OwnerRules, day: LocalDay): boolean {
  if (!rules.workingHours) return true;
  return (rules.workingHours[day.weekday] ?? []).length > 0;
}

/**
 * Working intervals of one local day, merged. Empty ranges (start >= end after mapping, e.g. a
 * 02:00-03:00 range on a spring-forward day) disappear. Requires configured working hours.
 */
export function dayWorkingIntervals(table: DayTable, rules: OwnerRules, day: LocalDay): Interval[] {
  const ranges = rules.workingHours?.[day.weekday] ?? [];
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
 * Real instants of working time intersecting [from, to), merged (a range ending at 24:00 merges with
 * one starting at 00:00 the next day) and clipped to [from, to). With workingHours null the whole
 * range is working time.
 */
export function workingIntervals(rules: OwnerRules, from: number, to: number): Interval[] {
  if (!(to > from)) return [];
  if (!rules.workingHours) return [{ start: from, end: to }];
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
export function claimMsOnDay(claim: Pick<Claim, 'start' | 'end' | 'countedMinutes'>, dayStart: number, dayEnd: number): number {
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
