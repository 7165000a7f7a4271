/**
 * Budget checks (median of several runs after a warm-up, so a busy machine does not flake):
 * 31-day search with ~2,000 claims in range and a 15-minute step well under 100 ms; 72 h under 10 ms.
 */
import { describe, expect, it } from 'vitest';
import { arbitrate, hardBlockIntervals, searchSlots, type Claim } from '@/server/domain/scheduling';
import { at, rules, week, H, MIN, POLICY } from './helpers';

const DAY = 24 * H;
const START = at('2026-03-01T00:00Z'); // the range spans the EU spring transition
const owner = rules({
  workingHours: week([{ start: '08:00', end: '20:00' }]),
  hardBlocks: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00' },
    { rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=5000', dtstart: '2000-01-04T16:00', duration_minutes: 30 },
  ],
  maxDailyMeetingHours: 20,
});
const claims: Claim[] = [];
for (let i = 0; i < 2000; i++) {
  const start = START + i * 22 * MIN; // 2,000 claims over ~31 days, 15 minutes each
  claims.push({ id: `c${i}`, kind: i % 3 ? 'booking' : 'hold', start, end: start + 15 * MIN, countedMinutes: 15, priority: i % 5, sacred: i % 7 === 0 });
}
const now = START - DAY;

function median(fn: () => unknown, runs = 9): number {
  for (let i = 0; i < 5; i++) fn(); // warm-up (JIT, Temporal caches): production code runs hot
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[runs >> 1];
}

describe('performance budgets', () => {
  it('31-day search with 2,000 claims and a 15-minute step: well under 100 ms', () => {
    const window = { start: START, end: START + 31 * DAY };
    let count = 0;
    const ms = median(() => {
      count = searchSlots({ rules: owner, claims, now, window, durationMinutes: 30, request: POLICY, maxResults: 500 }).slots.length;
    });
    expect(count).toBeGreaterThan(100);
    expect(ms).toBeLessThan(100);
  });

  it('31-day search that finds nothing (full scan + classification): under 100 ms', () => {
    const window = { start: START, end: START + 31 * DAY };
    const ms = median(() => searchSlots({ rules: owner, claims, now, window, durationMinutes: 13 * 60, request: POLICY }));
    expect(ms).toBeLessThan(100);
  });

  it('72 h search: under 10 ms', () => {
    const window = { start: START + 9 * DAY, end: START + 12 * DAY };
    expect(median(() => searchSlots({ rules: owner, claims, now, window, durationMinutes: 30, request: POLICY }))).toBeLessThan(10);
  });

  it('a rejected arbitration with a full alternatives scan: under 10 ms', () => {
    const request = { start: START + 9 * DAY + 20 * H, end: START + 9 * DAY + 21 * H, ...POLICY, agentCanPreempt: false };
    expect(median(() => arbitrate(request, { now, rules: owner, claims }))).toBeLessThan(10);
  });

  it('RRULE expansion far from dtstart is bounded', () => {
    expect(median(() => hardBlockIntervals(owner, START + 300 * DAY, START + 331 * DAY))).toBeLessThan(20);
  });
});
