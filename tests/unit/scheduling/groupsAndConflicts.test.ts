import { describe, expect, it } from 'vitest';
import { arbitrate, bookedMinutesOnLocalDay, findHoldStretches, nextAvailable } from '@/server/domain/scheduling';
import { at, claim, POLICY, rules, show } from './helpers';

/** all_free window holds (claim groups) and conflicts[] in the pure core (docs/arbitration.md). */
const NOW = at('2026-06-01T00:00Z');

describe('claim groups (all_free window holds)', () => {
  const g = (start: string, end: string, id: string) => claim(at(start), at(end), { id, kind: 'hold', countedMinutes: 30, group: 'h1' });
  const ranges = [g('2026-06-01T11:00Z', '2026-06-01T12:00Z', 'h1'), g('2026-06-01T12:30Z', '2026-06-01T15:00Z', 'h1-b')];

  it('count their duration once per day', () => {
    expect(bookedMinutesOnLocalDay(ranges, 'Europe/Berlin', at('2026-06-01T12:00Z'))).toBe(30);
    // without the group each range would count its own 30
    expect(bookedMinutesOnLocalDay(ranges.map((r) => ({ ...r, group: undefined })), 'Europe/Berlin', at('2026-06-01T12:00Z'))).toBe(60);
  });

  it('are set aside together by the hold id and give way whole in the daily limit', () => {
    const r = rules({ maxDailyMeetingHours: 1 });
    const booking = claim(at('2026-06-01T07:00Z'), at('2026-06-01T07:30Z'));
    const req = { ...POLICY, start: at('2026-06-01T08:00Z'), end: at('2026-06-01T08:30Z') };
    // 30 (booking) + 30 (hold, once) + 30 (ours) > 60
    expect(arbitrate(req, { now: NOW, rules: r, claims: [booking, ...ranges] }).outcome).not.toBe('accept');
    // confirming the hold sets all its ranges aside: 30 + 30 fits
    expect(arbitrate(req, { now: NOW, rules: r, claims: [booking, ...ranges], excludeClaimIds: ['h1'] }).outcome).toBe('accept');
    // preempting one range frees the whole group's minutes
    const over = { ...POLICY, start: at('2026-06-01T13:00Z'), end: at('2026-06-01T13:30Z') };
    const d = arbitrate(over, { now: NOW, rules: r, claims: [booking, ...ranges] });
    expect(d).toMatchObject({ outcome: 'accept', preempt: ['h1-b'] });
  });

  it('findHoldStretches returns every free stretch that fits, in order', () => {
    const busy = [claim(at('2026-06-01T12:00Z'), at('2026-06-01T12:30Z')), claim(at('2026-06-01T13:00Z'), at('2026-06-01T13:10Z'))];
    const window = { start: at('2026-06-01T11:00Z'), end: at('2026-06-01T15:00Z') };
    // 12:30-13:00 is exactly 30 min (fits), the rest are longer
    expect(show(findHoldStretches({ rules: rules(), claims: busy, now: NOW, durationMinutes: 30, request: POLICY, window }))).toEqual([
      '2026-06-01T11:00Z/2026-06-01T12:00Z',
      '2026-06-01T12:30Z/2026-06-01T13:00Z',
      '2026-06-01T13:10Z/2026-06-01T15:00Z',
    ]);
    expect(show(findHoldStretches({ rules: rules(), claims: busy, now: NOW, durationMinutes: 45, request: POLICY, window }))).toEqual([
      '2026-06-01T11:00Z/2026-06-01T12:00Z',
      '2026-06-01T13:10Z/2026-06-01T15:00Z',
    ]);
  });

  it('a free-time-only policy makes next_available skip a lower-priority claim', () => {
    const low = claim(at('2026-06-01T07:00Z'), at('2026-06-01T08:00Z'), { priority: 1 });
    const params = { rules: rules(), claims: [low], now: NOW, durationMinutes: 30, from: at('2026-06-01T07:00Z'), latestStart: at('2026-06-01T12:00Z') };
    expect(nextAvailable({ ...params, request: POLICY })?.start).toBe(at('2026-06-01T07:00Z'));
    expect(nextAvailable({ ...params, request: { ...POLICY, agentCanPreempt: false, preemptPolicy: 'never' } })?.start).toBe(at('2026-06-01T08:00Z'));
  });
});

describe('conflicts', () => {
  const blocks = rules({
    hardBlocks: [
      { days: ['mon'], start: '12:00', end: '13:00', label: 'Lunch' },
      { days: ['mon'], start: '12:30', end: '13:30' },
    ],
  });

  it('names hard blocks by label (null without one) and claims by kind and rank only', () => {
    const claims = [
      claim(at('2026-06-01T07:00Z'), at('2026-06-01T07:30Z'), { id: 'b-secret', priority: 50, meetingClass: 'external', sacred: true }),
      claim(at('2026-06-01T07:30Z'), at('2026-06-01T07:45Z'), { id: 'h-secret', kind: 'hold', priority: 50 }),
      claim(at('2026-06-01T07:45Z'), at('2026-06-01T08:00Z'), { id: 'provider:1', priority: Number.MAX_SAFE_INTEGER, sacred: true, external: true }),
    ];
    // 09:00-10:00 Berlin (CEST): the three claims, no hard block
    const d = arbitrate({ ...POLICY, start: at('2026-06-01T07:00Z'), end: at('2026-06-01T08:00Z') }, { now: NOW, rules: blocks, claims });
    expect(d.outcome === 'reject' || d.outcome === 'counter_propose' ? d.conflicts : null).toEqual([
      { kind: 'booking', meeting_class: 'external', priority: 50, sacred: true },
      { kind: 'hold' },
      { kind: 'calendar_event', sacred: true },
    ]);
    // 12:15-13:15 Berlin: both hard blocks
    const lunch = arbitrate({ ...POLICY, start: at('2026-06-01T10:15Z'), end: at('2026-06-01T11:15Z') }, { now: NOW, rules: blocks, claims: [] });
    expect(lunch.outcome === 'counter_propose' ? lunch.conflicts : null).toEqual([
      { kind: 'hard_block', label: 'Lunch' },
      { kind: 'hard_block', label: null },
    ]);
    expect(JSON.stringify(d)).not.toContain('secret');
  });
});
