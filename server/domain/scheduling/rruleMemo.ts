/**
 * The memo in front of the RRULE expansion (rrule.ts) that every decision reads.
 */
import { DAY } from './localTime';
import { expandRRuleRange, type RRuleBlock } from './rrule';
import type { Interval } from './types';

/**
 * Expansions are memoised per rule, zone and aligned 7-day chunk of UTC time: an owner's rules are
 * read for every decision on that owner, and a decision expands every rule over the days around it
 * (about 7 ms for 100 rules). The expansion is a pure function of (rule, zone, range), so a chunk
 * expanded once is reused by every later request touching those days; the memo is bounded and
 * starts over when full (docs/reliability.md "Limits on work per request").
 */
const CHUNK_MS = 7 * DAY;
const CHUNK_MEMO_LIMIT = 50_000;
const chunkMemo = new Map<string, Interval[]>();

/** Real intervals of an RRULE hard block that intersect [from, to) (unclipped), ascending: expandRRuleRange through the memo. */
export function expandRRuleBlock(block: RRuleBlock, timeZone: string, from: number, to: number): Interval[] {
  if (!(to > from)) return [];
  const c0 = Math.floor(from / CHUNK_MS);
  const c1 = Math.floor((to - 1) / CHUNK_MS);
  if (c1 - c0 > 12) return expandRRuleRange(block, timeZone, from, to); // long ranges (a rule summary, a year's preview): no memo
  const key = `${timeZone}|${block.rrule}|${block.dtstart}|${block.duration_minutes}|${block.count_checkpoint ? `${block.count_checkpoint.day}:${block.count_checkpoint.used}` : ''}|`;
  const out: Interval[] = [];
  let lastStart = -Infinity;
  for (let c = c0; c <= c1; c++) {
    let chunk = chunkMemo.get(key + c);
    if (!chunk) {
      chunk = expandRRuleRange(block, timeZone, c * CHUNK_MS, (c + 1) * CHUNK_MS);
      for (const i of chunk) Object.freeze(i);
      if (chunkMemo.size >= CHUNK_MEMO_LIMIT) chunkMemo.clear();
      chunkMemo.set(key + c, chunk);
    }
    // An occurrence running across a chunk boundary is in both chunks: keep it once.
    for (const i of chunk) {
      if (i.start < to && i.end > from && i.start > lastStart) {
        out.push(i);
        lastStart = i.start;
      }
    }
  }
  return out;
}
