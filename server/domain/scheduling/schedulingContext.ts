/**
 * Per-call scheduling context: the owner's local days, working intervals and hard blocks for a
 * horizon (computed once, extended lazily), and the claims index. Every check in evaluate.ts runs
 * against one of these, so arbitrate(), the alternatives, searchSlots(), nextAvailable() and
 * findHoldStretch() share one implementation of the rules and one cache per call.
 */
import { ClaimIndex } from './claimIndex';
import { anyOverlap, findContaining } from './intervals';
import { DayTable, DAY } from './localTime';
import { hardBlocksOfTable, hasTimeRules, workingIntervalsOfTable } from './timeRules';
import type { Claim, Interval, OwnerRules } from './types';

/**
 * An owner's rules laid out on its local days: the day table, working intervals and hard blocks
 * for a horizon (computed once, extended lazily). Depends on the rules only, so owners with the
 * same rules can share one (a group search, group.ts groupMembers).
 */
export class RulesCalendar {
  readonly table: DayTable;
  private covFrom = Infinity;
  private covTo = -Infinity;
  private working: Interval[] | null = null;
  private blocks: Interval[] = [];

  constructor(readonly rules: OwnerRules) {
    this.table = new DayTable(rules.timeZone);
  }

  /** Makes sure working intervals and hard blocks are known for every local day touching [from, to]. */
  ensure(from: number, to: number): void {
    if (from >= this.covFrom && to <= this.covTo) return;
    const lo = Math.min(from, this.covFrom) - DAY;
    const hi = Math.max(to, this.covTo) + DAY;
    this.table.ensure(lo, hi);
    const start = this.table.from;
    const end = this.table.to;
    this.blocks = hardBlocksOfTable(this.table, this.rules, start, end);
    this.working = hasTimeRules(this.rules)
      ? workingIntervalsOfTable(this.table, this.rules, 0, this.table.days.length - 1)
      : null;
    this.covFrom = start;
    this.covTo = end;
  }

  workingIntervalAt(t: number): Interval | undefined {
    this.ensure(t, t);
    return this.working ? findContaining(this.working, t) : { start: -Infinity, end: Infinity };
  }

  workingWithin(from: number, to: number): Interval[] {
    this.ensure(from, to);
    if (!this.working) return to > from ? [{ start: from, end: to }] : [];
    const out: Interval[] = [];
    for (const w of this.working) {
      const s = Math.max(w.start, from);
      const e = Math.min(w.end, to);
      if (e > s) out.push({ start: s, end: e });
    }
    return out;
  }

  overlapsHardBlock(start: number, end: number): boolean {
    this.ensure(start, end);
    return anyOverlap(this.blocks, start, end);
  }

  hardBlocksWithin(from: number, to: number): Interval[] {
    this.ensure(from, to);
    return this.blocks.filter((b) => b.end > from && b.start < to);
  }
}

export class SchedulingContext {
  readonly table: DayTable;
  readonly claims: ClaimIndex;
  private readonly calendar: RulesCalendar;

  constructor(
    readonly rules: OwnerRules,
    claims: readonly Claim[],
    readonly now: number,
    excludeClaimIds: readonly string[] = [],
    /** The rules' calendar, when shared with other owners of the same rules. */
    calendar?: RulesCalendar,
  ) {
    this.calendar = calendar ?? new RulesCalendar(rules);
    this.table = this.calendar.table;
    this.claims = new ClaimIndex(claims, excludeClaimIds);
  }

  /** Makes sure working intervals and hard blocks are known for every local day touching [from, to]. */
  ensure(from: number, to: number): void {
    this.calendar.ensure(from, to);
  }

  /** The merged working interval containing t (configured working hours only). */
  workingIntervalAt(t: number): Interval | undefined {
    return this.calendar.workingIntervalAt(t);
  }

  /** Merged working intervals (whole coverage when not configured) clipped to [from, to). */
  workingWithin(from: number, to: number): Interval[] {
    return this.calendar.workingWithin(from, to);
  }

  overlapsHardBlock(start: number, end: number): boolean {
    return this.calendar.overlapsHardBlock(start, end);
  }

  /** Merged hard-block intervals intersecting [from, to) (unclipped). */
  hardBlocksWithin(from: number, to: number): Interval[] {
    return this.calendar.hardBlocksWithin(from, to);
  }
}
