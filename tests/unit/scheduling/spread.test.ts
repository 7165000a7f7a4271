import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capPerDay, distinctSlots, localDay } from '@/server/domain/scheduling';

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);

describe('capPerDay (max_per_day)', () => {
  it.each([
    ['UTC: two per day of a crowded first day', 'UTC', ['2026-06-01T09:00Z', '2026-06-01T10:00Z', '2026-06-01T11:00Z', '2026-06-02T09:00Z'], 2, ['2026-06-01T09:00Z', '2026-06-01T10:00Z', '2026-06-02T09:00Z']],
    ['the owner-local day decides, not UTC (New York, 22:00 local is the next UTC day)', 'America/New_York', ['2026-06-01T13:00Z', '2026-06-02T02:00Z', '2026-06-02T13:00Z'], 1, ['2026-06-01T13:00Z', '2026-06-02T13:00Z']],
    ['a DST day is one day (Berlin, 2026-03-29)', 'Europe/Berlin', ['2026-03-29T00:30Z', '2026-03-29T21:30Z', '2026-03-29T22:30Z'], 1, ['2026-03-29T00:30Z', '2026-03-29T22:30Z']],
  ])('%s', (_name, zone, starts, n, expected) => {
    const slots = starts.map((s) => ({ start: at(s), end: at(s) + 30 * MIN }));
    expect(capPerDay(slots, n, zone).map((s) => new Date(s.start).toISOString().replace(':00.000Z', 'Z'))).toEqual(expected);
  });

  it('properties: a subsequence, at most n per local day, the earliest of each day', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 14 * 96 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kathmandu', 'Pacific/Chatham'),
        (quarters, n, zone) => {
          const base = at('2026-03-20T00:00Z');
          const sorted = [...new Set(quarters)].sort((a, b) => a - b).map((q) => ({ start: base + q * 15 * MIN, end: base + q * 15 * MIN + 45 * MIN }));
          const kept = capPerDay(sorted, n, zone);
          let i = 0;
          for (const k of kept) {
            while (sorted[i] !== k) i++; // throws past the end if not a subsequence
            expect(i).toBeLessThan(sorted.length);
          }
          const byDay = new Map<number, number[]>();
          for (const s of sorted) byDay.set(localDay(s.start, zone), [...(byDay.get(localDay(s.start, zone)) ?? []), s.start]);
          for (const [day, all] of byDay) {
            expect(kept.filter((k) => localDay(k.start, zone) === day).map((k) => k.start)).toEqual(all.slice(0, n));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('distinctSlots', () => {
  it('keeps the earliest, then each next slot that starts at or after the last kept end', () => {
    const s = (h: number, m: number) => ({ start: at('2026-06-01T00:00Z') + (h * 60 + m) * MIN, end: at('2026-06-01T00:00Z') + (h * 60 + m + 60) * MIN });
    expect(distinctSlots([s(13, 0), s(13, 15), s(13, 30), s(14, 0), s(14, 45), s(15, 0)])).toEqual([s(13, 0), s(14, 0), s(15, 0)]);
  });
});
