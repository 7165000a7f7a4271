import { arbitrate, searchSlots, nextAvailable, findHoldStretch } from '@/server/domain/scheduling';
import { at, rules, week, claim, POLICY } from './helpers';
const owner = rules({ hardBlocks: [{ days: ['mon','tue','wed','thu','fri'], start: '12:00', end: '13:00', label: 'lunch' }], maxDailyMeetingHours: 4 });
const now = at('2026-06-01T06:00Z'); // Mon 08:00 Berlin
const L = (s: string) => at(s + '+02:00');
const claims = [
  claim(L('2026-06-01T10:00'), L('2026-06-01T11:00'), { id: 'bk_sales', priority: 10 }),
  claim(L('2026-06-01T14:00'), L('2026-06-01T15:00'), { id: 'bk_sync', priority: 1 }),
  claim(L('2026-06-01T15:00'), L('2026-06-01T16:00'), { id: 'bk_board', priority: 1, sacred: true }),
  claim(L('2026-06-02T09:00'), L('2026-06-02T12:00'), { id: 'bk_workshop', priority: 10 }),
];
const fmt = (d: unknown) => JSON.stringify(d, (k, v) => (k === 'start' || k === 'end') && typeof v === 'number' ? new Date(v).toISOString() : v);
const ctx = { now, rules: owner, claims };
const P = { priority: 5, preemptPolicy: 'preempt_lower' as const, agentCanPreempt: true };
const cases: [string, string, string, object?][] = [
  ['past', '2026-06-01T07:00', '2026-06-01T07:30'],
  ['offday', '2026-06-06T10:00', '2026-06-06T10:30'],
  ['early', '2026-06-01T08:30', '2026-06-01T09:30'],
  ['lunch', '2026-06-01T12:30', '2026-06-01T13:30'],
  ['sales', '2026-06-01T10:30', '2026-06-01T11:00'],
  ['sync-preempt', '2026-06-01T14:00', '2026-06-01T14:30'],
  ['sync-noperm', '2026-06-01T14:00', '2026-06-01T14:30', { agentCanPreempt: false }],
  ['sync-never', '2026-06-01T14:00', '2026-06-01T14:30', { preemptPolicy: 'never' }],
  ['board', '2026-06-01T15:30', '2026-06-01T16:00'],
  ['daily', '2026-06-02T13:00', '2026-06-02T14:30'],
  ['ok', '2026-06-01T09:00', '2026-06-01T10:00'],
];
for (const [n, s, e, o] of cases) console.log(n, fmt(arbitrate({ start: L(s), end: L(e), ...P, ...(o ?? {}) }, ctx)));
console.log('open', fmt(arbitrate({ start: L('2026-06-06T10:00'), end: L('2026-06-06T10:30'), ...P }, { ...ctx, rules: { ...owner, workingHours: null } })));
console.log('search', fmt(searchSlots({ rules: owner, claims, now, window: { start: L('2026-06-01T13:00'), end: L('2026-06-01T17:00') }, durationMinutes: 60, stepMinutes: 30, request: P })));
console.log('search-none', fmt(searchSlots({ rules: owner, claims, now, window: { start: L('2026-06-06T09:00'), end: L('2026-06-06T17:00') }, durationMinutes: 60, request: P })));
console.log('next', fmt(nextAvailable({ rules: owner, claims, now, from: L('2026-06-06T09:00'), lookaheadEnd: L('2026-06-06T17:00') + 72*3600e3, durationMinutes: 60, request: P })));
console.log('hold', fmt(findHoldStretch({ rules: owner, claims, now, window: { start: L('2026-06-01T09:00'), end: L('2026-06-01T17:00') }, durationMinutes: 45, request: P })));
