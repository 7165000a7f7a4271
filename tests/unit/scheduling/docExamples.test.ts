/** Keeps docs/arbitration.md honest: its example table, checked row by row. */
import { describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { arbitrate, type Decision, type RequestPolicy } from '@/server/domain/scheduling';
import { at, claim, rules } from './helpers';

const L = (s: string) => at(`${s}+02:00`);
const owner = rules({
  hardBlocks: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00', label: 'lunch' }],
  maxDailyMeetingHours: 4,
});
const claims = [
  claim(L('2026-06-01T10:00'), L('2026-06-01T11:00'), { id: 'bk_sales', priority: 10 }),
  claim(L('2026-06-01T14:00'), L('2026-06-01T15:00'), { id: 'bk_sync', priority: 1 }),
  claim(L('2026-06-01T15:00'), L('2026-06-01T16:00'), { id: 'bk_board', priority: 1, sacred: true }),
  claim(L('2026-06-02T09:00'), L('2026-06-02T12:00'), { id: 'bk_workshop', priority: 10 }),
];
const now = L('2026-06-01T08:00');
const P: RequestPolicy = { priority: 5, preemptPolicy: 'preempt_lower', agentCanPreempt: true };
const local = (ms: number) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO('Europe/Berlin').toPlainTime().toString().slice(0, 5);
const summary = (d: Decision) =>
  d.outcome === 'accept'
    ? `accept ${JSON.stringify(d.preempt)}`
    : d.outcome === 'past_time'
      ? 'past_time'
      : `${d.outcome} ${d.reason}/${d.failedReason} ${d.alternatives.map((a) => local(a.start)).join(',')} ${d.alternatives[0]?.reason_code ?? ''}`.trim();

describe('docs/arbitration.md examples', () => {
  it.each<[number, string, string, Partial<RequestPolicy>, string]>([
    [1, '2026-06-01T07:00', '2026-06-01T07:30', {}, 'past_time'],
    [2, '2026-06-06T10:00', '2026-06-06T10:30', {}, 'counter_propose COUNTER_PROPOSED/OFF_DAY 15:30,16:00,16:30 off_day'],
    [3, '2026-06-01T08:30', '2026-06-01T09:30', {}, 'counter_propose COUNTER_PROPOSED/WORKING_HOURS 09:00,11:00,13:00 working_hours'],
    [4, '2026-06-01T12:30', '2026-06-01T13:30', {}, 'counter_propose COUNTER_PROPOSED/NO_CAPACITY 11:00,13:00,14:00 capacity_conflict'],
    [5, '2026-06-01T10:30', '2026-06-01T11:00', {}, 'counter_propose COUNTER_PROPOSED/NO_CAPACITY 09:30,11:00,11:30 capacity_conflict'],
    [6, '2026-06-01T14:00', '2026-06-01T14:30', {}, 'accept ["bk_sync"]'],
    [7, '2026-06-01T14:00', '2026-06-01T14:30', { agentCanPreempt: false }, 'reject PERMISSION_DENIED_PREEMPT/PERMISSION_DENIED_PREEMPT 13:00,13:30,16:00 permission_denied_preempt'],
    [8, '2026-06-01T14:00', '2026-06-01T14:30', { preemptPolicy: 'never' }, 'counter_propose COUNTER_PROPOSED/NO_CAPACITY 13:00,13:30,16:00 capacity_conflict'],
    [9, '2026-06-01T15:30', '2026-06-01T16:00', {}, 'reject SACRED_MEETING/SACRED_MEETING 14:30,16:00,16:30 sacred_meeting'],
    [10, '2026-06-02T13:00', '2026-06-02T14:30', {}, 'counter_propose COUNTER_PROPOSED/MAX_DAILY_HOURS 13:30,09:00,10:30 daily_hours_limit'],
    [11, '2026-06-01T09:00', '2026-06-01T10:00', {}, 'accept []'],
  ])('row %i', (_row, start, end, over, expected) => {
    expect(summary(arbitrate({ start: L(start), end: L(end), ...P, ...over }, { now, rules: owner, claims }))).toBe(expected);
  });

  it('row 12: no working hours', () => {
    const d = arbitrate({ start: L('2026-06-06T10:00'), end: L('2026-06-06T10:30'), ...P }, { now, rules: { ...owner, workingHours: null }, claims });
    expect(d).toEqual({ outcome: 'accept', preempt: [], warnings: ['WORKING_HOURS_NOT_CONFIGURED'] });
  });
});
