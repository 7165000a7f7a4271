/**
 * Pure scheduling core timings (no database, no HTTP): what the arbiter and
 * slot search cost on their own. Prints figures; asserts nothing.
 *   npx tsx bench/scheduling-core.ts
 */
import { arbitrate, hardBlockIntervals, searchSlots, type Claim, type OwnerRules, type RequestPolicy } from '@/server/domain/scheduling';

const MIN = 60_000;
const H = 60 * MIN;
const DAY = 24 * H;
const START = Date.parse('2026-03-01T00:00Z'); // spans the EU spring transition
const day = [{ start: '08:00', end: '20:00' }];
const owner: OwnerRules = {
  timeZone: 'Europe/Berlin',
  workingHours: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day },
  hardBlocks: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00' },
    { rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=5000', dtstart: '2000-01-04T16:00', duration_minutes: 30 },
  ],
  maxDailyMeetingHours: 20,
};
const POLICY: RequestPolicy = { priority: 3, preemptPolicy: 'preempt_lower', agentCanPreempt: true };
const claims: Claim[] = [];
for (let i = 0; i < 2000; i++) {
  const start = START + i * 22 * MIN; // 2,000 claims over ~31 days, 15 minutes each
  claims.push({ id: `c${i}`, kind: i % 3 ? 'booking' : 'hold', start, end: start + 15 * MIN, countedMinutes: 15, priority: i % 5, sacred: i % 7 === 0 });
}
const now = START - DAY;

function measure(name: string, fn: () => unknown, runs = 30) {
  for (let i = 0; i < 5; i++) fn(); // warm-up (JIT, Temporal caches)
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
  console.log(`${name.padEnd(62)} best ${times[0].toFixed(2)} ms  p50 ${q(0.5)} ms  p99 ${q(0.99)} ms  (${runs} runs)`);
}

const month = { start: START, end: START + 31 * DAY };
measure('31-day search, 2,000 claims, 15-min step, up to 500 slots', () => searchSlots({ rules: owner, claims, now, window: month, durationMinutes: 30, request: POLICY, maxResults: 500 }));
measure('31-day search that finds nothing (full scan + reason)', () => searchSlots({ rules: owner, claims, now, window: month, durationMinutes: 13 * 60, request: POLICY }));
measure('72 h search', () => searchSlots({ rules: owner, claims, now, window: { start: START + 9 * DAY, end: START + 12 * DAY }, durationMinutes: 30, request: POLICY }), 200);
measure('rejected arbitration with the full alternatives scan', () =>
  arbitrate({ start: START + 9 * DAY + 20 * H, end: START + 9 * DAY + 21 * H, ...POLICY, agentCanPreempt: false }, { now, rules: owner, claims }), 200);
measure('RRULE expansion 300 days after dtstart (31 days)', () => hardBlockIntervals(owner, START + 300 * DAY, START + 331 * DAY), 200);
