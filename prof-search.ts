import { searchSlots, localSpan } from '@/server/domain/scheduling';
import { rules, week, POLICY } from '@/tests/unit/scheduling/helpers';
const r = rules({ hardBlocks: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00', label: 'lunch' },
    { rrule: 'FREQ=WEEKLY;BYDAY=WE', dtstart: '2026-01-07T15:00', duration_minutes: 60 },
    { rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', dtstart: '2026-01-01T09:00', duration_minutes: 90 },
  ] as any, maxDailyMeetingHours: 6 });
const m0 = Date.UTC(2026, 11, 1);
const now = Date.UTC(2026, 10, 24);
for (let i = 0; i < 40; i++) {
  const a = performance.now();
  const res = searchSlots({ rules: r, claims: [], now, durationMinutes: 30, request: POLICY, window: { start: m0, end: m0 + 31 * 86400000 }, stepMinutes: 5, maxResults: 500 });
  const b = performance.now();
  const out = res.slots.map((s) => ({ ...localSpan(s.start, s.end, r.timeZone), preempts: s.preempts }));
  const j = JSON.stringify({ slots: out });
  const c = performance.now();
  if (i % 8 === 7) console.log('search', (b - a).toFixed(2), 'format+json', (c - b).toFixed(2), res.slots.length, j.length);
}
