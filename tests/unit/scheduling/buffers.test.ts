/**
 * Buffers in the pure core (docs/arbitration.md "Buffers"), case by case: whose buffer, which
 * side, overlapping buffers, provider busy time with and without the owner's rule, preemption
 * of a lower meeting in a buffer, and what a buffer does not count toward.
 */
import { describe, expect, it } from 'vitest';
import { arbitrate, reachOf, type Claim, type RequestPolicy } from '@/server/domain/scheduling';
import { at, MIN, rules } from './helpers';

const NOW = at('2026-06-01T05:00:00Z'); // Monday 07:00 Berlin
const T = (hhmm: string) => at(`2026-06-01T${hhmm}:00+02:00`);
const policy = (over: Partial<RequestPolicy> = {}): RequestPolicy => ({ priority: 5, preemptPolicy: 'preempt_lower', agentCanPreempt: true, ...over });
const booking = (id: string, from: string, to: string, over: Partial<Claim> = {}): Claim => ({
  id,
  kind: 'booking',
  start: T(from),
  end: T(to),
  countedMinutes: (T(to) - T(from)) / MIN,
  priority: 9,
  sacred: false,
  meetingClass: 'exec',
  ...over,
});
const decide = (from: string, to: string, claims: Claim[], p: RequestPolicy = policy(), r = rules()) => arbitrate({ start: T(from), end: T(to), ...p }, { now: NOW, rules: r, claims });

describe('buffers', () => {
  const tenEach = policy({ bufferBeforeMs: 10 * MIN, bufferAfterMs: 10 * MIN });

  it('the request\'s own buffer runs into a meeting before it: refused, named as a buffer on the before side', () => {
    const d = decide('10:05', '10:35', [booking('b1', '09:00', '10:00')], tenEach);
    expect(d.outcome).toBe('counter_propose');
    if (d.outcome !== 'counter_propose') return;
    expect(d.failedReason).toBe('NO_CAPACITY');
    expect(d.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: { kind: 'booking', meeting_class: 'exec', priority: 9, sacred: false } }]);
    // Alternatives keep the buffer: none starts before 10:10 after the meeting or ends after 08:50 before it.
    for (const a of d.alternatives) expect(a.end <= T('08:50') || a.start >= T('10:10')).toBe(true);
    expect(decide('10:10', '10:40', [booking('b1', '09:00', '10:00')], tenEach).outcome).toBe('accept');
  });

  it('a meeting\'s own buffer refuses a request without buffers, on the after side', () => {
    const d = decide('10:30', '11:00', [booking('b1', '11:10', '12:00', { bufferBeforeMs: 15 * MIN })]);
    expect(d.outcome !== 'accept' && d.outcome !== 'past_time' && d.conflicts).toEqual([{ kind: 'buffer', side: 'after', meeting: { kind: 'booking', meeting_class: 'exec', priority: 9, sacred: false } }]);
    expect(decide('10:30', '10:55', [booking('b1', '11:10', '12:00', { bufferBeforeMs: 15 * MIN })]).outcome).toBe('accept');
  });

  it('buffers may overlap each other: the gap is the larger buffer, not the sum', () => {
    const before = [booking('b1', '09:00', '10:00', { bufferAfterMs: 10 * MIN })];
    expect(decide('10:10', '10:40', before, tenEach).outcome).toBe('accept');
    expect(reachOf(before[0], tenEach, rules())).toEqual({ start: T('08:50'), end: T('10:10') });
  });

  it('provider busy time gets no buffers unless the owner asks (bufferExternalEvents)', () => {
    const busy: Claim = { ...booking('e1', '09:00', '10:00'), priority: Number.MAX_SAFE_INTEGER, sacred: true, external: true, meetingClass: null };
    expect(decide('10:00', '10:30', [busy], tenEach).outcome).toBe('accept');
    const asked = decide('10:00', '10:30', [busy], tenEach, rules({ bufferExternalEvents: true }));
    expect(asked).toMatchObject({ outcome: 'reject', reason: 'SACRED_MEETING', conflicts: [{ kind: 'buffer', side: 'before', meeting: { kind: 'calendar_event', sacred: true } }] });
  });

  it('a lower meeting in a buffer gives way like an overlapping one (with the permission), and a hold is named as a hold', () => {
    const lower = booking('low', '10:35', '11:00', { priority: 1 });
    expect(decide('10:00', '10:30', [lower], tenEach)).toMatchObject({ outcome: 'accept', preempt: ['low'] });
    const refused = decide('10:00', '10:30', [lower], { ...tenEach, agentCanPreempt: false });
    expect(refused).toMatchObject({ outcome: 'reject', reason: 'PERMISSION_DENIED_PREEMPT' });
    const hold: Claim = { ...booking('h1', '10:35', '11:00'), kind: 'hold' };
    expect(decide('10:00', '10:30', [hold], tenEach)).toMatchObject({ conflicts: [{ kind: 'buffer', side: 'after', meeting: { kind: 'hold' } }] });
  });

  it('buffers are not meeting time: working hours and the daily limit judge the meeting only', () => {
    // 09:00 with ten minutes before it, working hours from 09:00; a 1 h limit with a 1 h meeting.
    expect(decide('09:00', '10:00', [], tenEach, rules({ maxDailyMeetingHours: 1 })).outcome).toBe('accept');
    expect(decide('16:00', '17:00', [], tenEach).outcome).toBe('accept');
  });
});
