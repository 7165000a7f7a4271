/** Half-open interval helpers on epoch milliseconds. All inputs/outputs are [start, end). */
import type { Interval } from './types';

/** Sorts and merges overlapping or touching intervals; drops empty ones. Returns a new array. */
export function mergeIntervals(list: readonly Interval[]): Interval[] {
  const sorted = list.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) {
      if (i.end > last.end) last.end = i.end;
    } else {
      out.push({ start: i.start, end: i.end });
    }
  }
  return out;
}

/** Clips merged, sorted intervals to [from, to). */
export function clipIntervals(list: readonly Interval[], from: number, to: number): Interval[] {
  const out: Interval[] = [];
  for (const i of list) {
    const s = Math.max(i.start, from);
    const e = Math.min(i.end, to);
    if (e > s) out.push({ start: s, end: e });
  }
  return out;
}

/** Subtracts `minus` (merged, sorted) from `base` (merged, sorted). Linear sweep. */
export function subtractIntervals(base: readonly Interval[], minus: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const b of base) {
    let cur = b.start;
    while (j < minus.length && minus[j].end <= cur) j++;
    let k = j;
    while (k < minus.length && minus[k].start < b.end) {
      if (minus[k].start > cur) out.push({ start: cur, end: minus[k].start });
      cur = Math.max(cur, minus[k].end);
      k++;
    }
    if (cur < b.end) out.push({ start: cur, end: b.end });
  }
  return out;
}

/** First index i in [0, n) with pred(i) true, for a predicate monotone false..true; n if none. */
export function lowerBound(n: number, pred: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** In merged, sorted intervals: the one containing the instant t (start <= t < end), or undefined. */
export function findContaining(list: readonly Interval[], t: number): Interval | undefined {
  const i = lowerBound(list.length, (k) => list[k].end > t);
  return i < list.length && list[i].start <= t ? list[i] : undefined;
}

/** In merged, sorted intervals: does any overlap [start, end)? O(log n). */
export function anyOverlap(list: readonly Interval[], start: number, end: number): boolean {
  const i = lowerBound(list.length, (k) => list[k].end > start);
  return i < list.length && list[i].start < end;
}
