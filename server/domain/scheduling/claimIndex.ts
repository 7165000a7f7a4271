/**
 * Claims sorted by start with a prefix maximum of their ends: overlap queries are a binary search
 * plus a walk over the claims that can still reach the query (O(log n + k) for the non-overlapping
 * claims the database guarantees; still correct if some do overlap).
 */
import { lowerBound } from './intervals';
import { claimsMsOnDay } from './timeRules';
import type { Claim } from './types';

export class ClaimIndex {
  readonly sorted: Claim[];
  private readonly prefixMaxEnd: number[];
  private readonly dayMs = new Map<number, number>();
  /** The longest buffer any claim here keeps (docs/arbitration.md "Buffers"): how far beyond a query a claim may still reach into it. */
  readonly maxBufferMs: number;

  constructor(claims: readonly Claim[], excludeIds: readonly string[] = []) {
    const excluded = new Set(excludeIds);
    this.sorted = claims
      .filter((c) => !excluded.has(c.id) && !(c.group && excluded.has(c.group)) && c.end > c.start)
      .sort((a, b) => a.start - b.start || a.end - b.end || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.prefixMaxEnd = [];
    let max = -Infinity;
    let buffer = 0;
    for (const c of this.sorted) {
      max = Math.max(max, c.end);
      this.prefixMaxEnd.push(max);
      buffer = Math.max(buffer, c.bufferBeforeMs ?? 0, c.bufferAfterMs ?? 0);
    }
    this.maxBufferMs = buffer;
  }

  /** Claims overlapping [start, end), in start order. */
  overlapping(start: number, end: number): Claim[] {
    const list = this.sorted;
    const hi = lowerBound(list.length, (i) => list[i].start >= end);
    const out: Claim[] = [];
    for (let i = hi - 1; i >= 0 && this.prefixMaxEnd[i] > start; i--) {
      if (list[i].end > start) out.push(list[i]);
    }
    return out.reverse();
  }

  /**
   * Milliseconds booked on the local day [dayStart, dayEnd) (claimsMsOnDay: a group counts once),
   * memoised per day; `drop` (claim ids or groups that would give way) is left out, unmemoised.
   */
  bookedMsOnDay(dayStart: number, dayEnd: number, drop?: ReadonlySet<string>): number {
    if (drop?.size) return claimsMsOnDay(this.overlapping(dayStart, dayEnd), dayStart, dayEnd, drop);
    const memo = this.dayMs.get(dayStart);
    if (memo !== undefined) return memo;
    const ms = claimsMsOnDay(this.overlapping(dayStart, dayEnd), dayStart, dayEnd);
    this.dayMs.set(dayStart, ms);
    return ms;
  }
}
