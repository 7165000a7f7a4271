import { describe, expect, it } from 'vitest';
import { arbitrate, type ArbitrationRequest, type Claim, type Decision, type OwnerRules } from '@/server/domain/scheduling';
import { at, claim, iso, POLICY, rules, week, MIN } from './helpers';

// Europe/Berlin in June is +02:00. 2026-06-01 is a Monday.
const NOW = at('2026-05-31T00:00Z');
const L = (local: string) => at(`${local}+02:00`);
const req = (start: string, end: string, over: Partial<ArbitrationRequest> = {}): ArbitrationRequest => ({
  start: L(start),
  end: L(end),
  ...POLICY,
  ...over,
});
const lunch = rules({ hardBlocks: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00' }] });

function run(r: ArbitrationRequest, o: { rules?: OwnerRules; claims?: Claim[]; now?: number; exclude?: string[] } = {}): Decision {
  return arbitrate(r, { now: o.now ?? NOW, rules: o.rules ?? rules(), claims: o.claims ?? [], excludeClaimIds: o.exclude });
}
const altsOf = (d: Decision) => ('alternatives' in d ? d.alternatives.map((a) => `${iso(a.start)}/${a.reason_code}`) : []);

describe('arbitrate: decision order and reasons', () => {
  const low = (s: string, e: string, over: Partial<Claim> = {}) => claim(L(s), L(e), { priority: 1, ...over });
  type Case = [string, ArbitrationRequest, Parameters<typeof run>[1], Partial<Decision> & Record<string, unknown>];
  const cases: Case[] = [
    ['past start -> past_time', req('2026-05-30T10:00', '2026-05-30T10:30'), {}, { outcome: 'past_time' }],
    ['start exactly now is allowed', req('2026-06-01T10:00', '2026-06-01T10:30'), { now: L('2026-06-01T10:00') }, { outcome: 'accept', preempt: [] }],
    ['free slot in working hours', req('2026-06-01T10:00', '2026-06-01T11:00'), {}, { outcome: 'accept', preempt: [], warnings: [] }],
    ['Saturday -> OFF_DAY', req('2026-06-06T10:00', '2026-06-06T10:30'), {}, { outcome: 'counter_propose', reason: 'COUNTER_PROPOSED', failedReason: 'OFF_DAY' }],
    ['before 09:00 -> WORKING_HOURS', req('2026-06-01T08:30', '2026-06-01T09:30'), {}, { outcome: 'counter_propose', failedReason: 'WORKING_HOURS' }],
    ['past 17:00 -> WORKING_HOURS', req('2026-06-01T16:30', '2026-06-01T17:30'), {}, { failedReason: 'WORKING_HOURS' }],
    ['hard block -> NO_CAPACITY', req('2026-06-01T12:30', '2026-06-01T13:00'), { rules: lunch }, { outcome: 'counter_propose', failedReason: 'NO_CAPACITY' }],
    ['off day beats hard block', req('2026-06-06T12:00', '2026-06-06T12:30'), { rules: rules({ hardBlocks: [{ days: ['sat'], start: '00:00', end: '24:00' }] }) }, { failedReason: 'OFF_DAY' }],
    ['working hours beat a claim', req('2026-06-01T16:30', '2026-06-01T17:30'), { claims: [low('2026-06-01T16:00', '2026-06-01T17:00', { sacred: true })] }, { failedReason: 'WORKING_HOURS' }],
    ['hard block beats a sacred claim', req('2026-06-01T12:00', '2026-06-01T12:30'), { rules: lunch, claims: [low('2026-06-01T12:00', '2026-06-01T12:30', { sacred: true })] }, { failedReason: 'NO_CAPACITY' }],
    ['sacred claim -> SACRED_MEETING (reject, never counter-proposed)', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T10:30', '2026-06-01T11:30', { sacred: true })] }, { outcome: 'reject', reason: 'SACRED_MEETING', failedReason: 'SACRED_MEETING' }],
    ['equal priority -> NO_CAPACITY', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T10:00', '2026-06-01T11:00', { priority: 5 })] }, { outcome: 'counter_propose', failedReason: 'NO_CAPACITY' }],
    ['higher priority hold -> NO_CAPACITY', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T09:00', '2026-06-01T10:15', { priority: 9, kind: 'hold' })] }, { failedReason: 'NO_CAPACITY' }],
    ['lower, agent lacks preempt -> PERMISSION_DENIED_PREEMPT (reject)', req('2026-06-01T10:00', '2026-06-01T11:00', { agentCanPreempt: false }), { claims: [low('2026-06-01T10:00', '2026-06-01T10:30')] }, { outcome: 'reject', reason: 'PERMISSION_DENIED_PREEMPT' }],
    ['lower but our policy never -> NO_CAPACITY', req('2026-06-01T10:00', '2026-06-01T11:00', { preemptPolicy: 'never' }), { claims: [low('2026-06-01T10:00', '2026-06-01T10:30')] }, { failedReason: 'NO_CAPACITY' }],
    ['permission is checked before policy', req('2026-06-01T10:00', '2026-06-01T11:00', { preemptPolicy: 'never', agentCanPreempt: false }), { claims: [low('2026-06-01T10:00', '2026-06-01T10:30')] }, { failedReason: 'PERMISSION_DENIED_PREEMPT' }],
    ['claims in start order: a preemptable lower claim then a sacred one -> SACRED_MEETING', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T10:30', '2026-06-01T11:00', { sacred: true }), low('2026-06-01T10:00', '2026-06-01T10:30')] }, { failedReason: 'SACRED_MEETING' }],
    ['claims in start order: lower without permission first, sacred later -> PERMISSION_DENIED_PREEMPT', req('2026-06-01T10:00', '2026-06-01T11:00', { agentCanPreempt: false }), { claims: [low('2026-06-01T10:30', '2026-06-01T11:00', { sacred: true }), low('2026-06-01T10:00', '2026-06-01T10:30')] }, { failedReason: 'PERMISSION_DENIED_PREEMPT' }],
    ['lower claims are preempted, ids in start order', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T10:40', '2026-06-01T11:30', { id: 'b' }), low('2026-06-01T09:30', '2026-06-01T10:10', { id: 'a', kind: 'hold' })] }, { outcome: 'accept', preempt: ['a', 'b'] }],
    ['touching claims do not overlap (half-open)', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T09:00', '2026-06-01T10:00', { priority: 9 }), low('2026-06-01T11:00', '2026-06-01T12:00', { sacred: true })] }, { outcome: 'accept', preempt: [] }],
    ['excluded claim (the hold being confirmed) is ignored', req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [low('2026-06-01T10:00', '2026-06-01T11:00', { id: 'h1', kind: 'hold', priority: 5 })], exclude: ['h1'] }, { outcome: 'accept', preempt: [] }],
  ];
  it.each(cases)('%s', (_name, r, opts, expected) => {
    expect(run(r, opts)).toMatchObject(expected);
  });
});

describe('arbitrate: daily limit', () => {
  const withMax = (h: number) => rules({ maxDailyMeetingHours: h });
  const booked = (s: string, e: string, over: Partial<Claim> = {}) => claim(L(s), L(e), { priority: 9, ...over });
  it.each([
    ['exceeding -> MAX_DAILY_HOURS', 2, [booked('2026-06-01T09:00', '2026-06-01T10:30')], req('2026-06-01T14:00', '2026-06-01T15:00'), 'MAX_DAILY_HOURS'],
    ['exactly reaching the limit is allowed', 2, [booked('2026-06-01T09:00', '2026-06-01T10:00')], req('2026-06-01T14:00', '2026-06-01T15:00'), 'accept'],
    ['fractional limit 4.5 h: 4 h + 30 min fits', 4.5, [booked('2026-06-01T09:00', '2026-06-01T13:00')], req('2026-06-01T14:00', '2026-06-01T14:30'), 'accept'],
    ['fractional limit 4.5 h: 4 h 15 + 30 min does not', 4.5, [booked('2026-06-01T09:00', '2026-06-01T13:15')], req('2026-06-01T14:00', '2026-06-01T14:30'), 'MAX_DAILY_HOURS'],
    ['other days do not count', 1, [booked('2026-06-02T09:00', '2026-06-02T17:00'), booked('2026-05-29T09:00', '2026-05-29T17:00')], req('2026-06-01T14:00', '2026-06-01T15:00'), 'accept'],
    ['preempted claims are subtracted', 2, [booked('2026-06-01T14:00', '2026-06-01T15:30', { priority: 1 })], req('2026-06-01T14:00', '2026-06-01T15:00'), 'accept'],
    ['window hold counts its duration, not its window', 1.5, [booked('2026-06-01T09:00', '2026-06-01T12:00', { kind: 'hold', countedMinutes: 60 })], req('2026-06-01T14:00', '2026-06-01T14:30'), 'accept'],
    ['window hold duration + ours over the limit', 1.5, [booked('2026-06-01T09:00', '2026-06-01T12:00', { kind: 'hold', countedMinutes: 60 })], req('2026-06-01T14:00', '2026-06-01T14:45'), 'MAX_DAILY_HOURS'],
    ['a claim from the previous evening counts only its part after midnight', 1, [booked('2026-05-31T23:00', '2026-06-01T00:30')], req('2026-06-01T14:00', '2026-06-01T14:30'), 'accept'],
  ])('%s', (_name, max, claims, r, expected) => {
    const d = run(r, { rules: withMax(max), claims });
    expect(d.outcome === 'accept' ? 'accept' : 'failedReason' in d ? d.failedReason : d.outcome).toBe(expected);
  });

  it('MAX_DAILY_HOURS counter-proposes slots on another day', () => {
    const d = run(req('2026-06-01T10:00', '2026-06-01T11:00'), {
      rules: withMax(2),
      claims: [booked('2026-06-01T13:00', '2026-06-01T14:30')],
    });
    expect(d).toMatchObject({ outcome: 'counter_propose', failedReason: 'MAX_DAILY_HOURS' });
    expect(altsOf(d)).toEqual(['2026-06-02T07:00Z/daily_hours_limit', '2026-06-02T08:00Z/daily_hours_limit', '2026-06-02T09:00Z/daily_hours_limit']);
  });

  it('a request spanning midnight is checked against both days', () => {
    const r = rules({
      maxDailyMeetingHours: 1,
      workingHours: { ...week([]), mon: [{ start: '20:00', end: '24:00' }], tue: [{ start: '00:00', end: '02:00' }] },
    });
    const tuesdayMorning = booked('2026-06-02T01:00', '2026-06-02T01:45');
    expect(run(req('2026-06-01T23:00', '2026-06-02T00:30'), { rules: r })).toMatchObject({ outcome: 'accept' });
    expect(run(req('2026-06-01T23:00', '2026-06-02T00:30'), { rules: r, claims: [tuesdayMorning] })).toMatchObject({ failedReason: 'MAX_DAILY_HOURS' });
  });
});

describe('arbitrate: working time details', () => {
  it('a request across midnight is fine inside one merged working interval, OFF_DAY if a touched day is off', () => {
    const overnight = rules({ workingHours: { ...week([]), mon: [{ start: '20:00', end: '24:00' }], tue: [{ start: '00:00', end: '02:00' }] } });
    expect(run(req('2026-06-01T23:00', '2026-06-02T01:00'), { rules: overnight })).toMatchObject({ outcome: 'accept' });
    const mondayOnly = rules({ workingHours: { ...week([]), mon: [{ start: '20:00', end: '24:00' }] } });
    expect(run(req('2026-06-01T23:30', '2026-06-02T00:30'), { rules: mondayOnly })).toMatchObject({ failedReason: 'OFF_DAY' });
    expect(run(req('2026-06-01T23:30', '2026-06-02T00:00'), { rules: mondayOnly })).toMatchObject({ outcome: 'accept' });
  });

  it('a gap between two ranges of one day is WORKING_HOURS', () => {
    const split = rules({ workingHours: week([{ start: '09:00', end: '12:00' }, { start: '13:00', end: '17:00' }]) });
    expect(run(req('2026-06-01T11:30', '2026-06-01T13:30'), { rules: split })).toMatchObject({ failedReason: 'WORKING_HOURS' });
  });

  it('DST: 01:00-04:00 on the Berlin spring-forward day holds exactly 2 real hours', () => {
    const r = rules({ workingHours: week([{ start: '01:00', end: '04:00' }], ['sun']) });
    const now = at('2026-03-01T00:00Z');
    const ok = { start: at('2026-03-29T01:00+01:00'), end: at('2026-03-29T04:00+02:00'), ...POLICY };
    expect(arbitrate(ok, { now, rules: r, claims: [] })).toMatchObject({ outcome: 'accept' });
    expect(ok.end - ok.start).toBe(120 * MIN);
    const tooLong = { ...ok, end: ok.end + 15 * MIN };
    expect(arbitrate(tooLong, { now, rules: r, claims: [] })).toMatchObject({ failedReason: 'WORKING_HOURS' });
  });

  it('no working hours configured: anything goes, with the warning on accept and on reject', () => {
    const open = rules({ workingHours: null });
    expect(run(req('2026-06-06T03:00', '2026-06-06T04:00'), { rules: open })).toEqual({
      outcome: 'accept',
      preempt: [],
      warnings: ['WORKING_HOURS_NOT_CONFIGURED'],
    });
    const d = run(req('2026-06-06T03:00', '2026-06-06T04:00'), { rules: open, claims: [claim(L('2026-06-06T03:00'), L('2026-06-06T04:00'), { priority: 9 })] });
    expect(d).toMatchObject({ outcome: 'counter_propose', warnings: ['WORKING_HOURS_NOT_CONFIGURED'] });
    expect(altsOf(d)).toEqual(['2026-06-05T23:00Z/capacity_conflict', '2026-06-06T00:00Z/capacity_conflict', '2026-06-06T02:00Z/capacity_conflict']);
  });

  it('rejects end <= start as a programming error', () => {
    expect(() => run(req('2026-06-01T10:00', '2026-06-01T10:00'))).toThrow(RangeError);
  });
});

describe('arbitrate: alternatives', () => {
  it('OFF_DAY on Saturday: the nearest three that do not overlap are Friday afternoon', () => {
    const d = run(req('2026-06-06T10:00', '2026-06-06T10:30'));
    expect(altsOf(d)).toEqual(['2026-06-05T13:30Z/off_day', '2026-06-05T14:00Z/off_day', '2026-06-05T14:30Z/off_day']);
  });

  it('WORKING_HOURS: nearest after 09:00, and before 17:00', () => {
    expect(altsOf(run(req('2026-06-01T08:30', '2026-06-01T09:30')))).toEqual([
      '2026-06-01T07:00Z/working_hours', '2026-06-01T08:00Z/working_hours', '2026-06-01T09:00Z/working_hours',
    ]);
    expect(altsOf(run(req('2026-06-01T16:30', '2026-06-01T17:30')))).toEqual([
      '2026-06-01T12:00Z/working_hours', '2026-06-01T13:00Z/working_hours', '2026-06-01T14:00Z/working_hours',
    ]);
  });

  it('hard block: skips slots overlapping the block on both sides', () => {
    expect(altsOf(run(req('2026-06-01T12:30', '2026-06-01T13:00'), { rules: lunch }))).toEqual([
      '2026-06-01T09:30Z/capacity_conflict', '2026-06-01T11:00Z/capacity_conflict', '2026-06-01T11:30Z/capacity_conflict',
    ]);
  });

  it('ties in distance go to the earlier slot; the result is sorted by start', () => {
    // acceptable: X-45, X+15, X+30, X+45 (15-minute meeting at X = 12:00, busy 11:30-12:15)
    const d = run(req('2026-06-01T12:00', '2026-06-01T12:15'), { claims: [claim(L('2026-06-01T11:30'), L('2026-06-01T12:15'), { priority: 9 })] });
    expect(altsOf(d)).toEqual(['2026-06-01T09:15Z/capacity_conflict', '2026-06-01T10:15Z/capacity_conflict', '2026-06-01T10:30Z/capacity_conflict']);
  });

  it('alternatives never start before now, and keep the requested length', () => {
    const now = L('2026-06-01T16:05');
    const d = run(req('2026-06-01T16:15', '2026-06-01T16:45'), { now, claims: [claim(L('2026-06-01T16:00'), L('2026-06-01T17:00'), { priority: 9 })] });
    expect(altsOf(d)).toEqual(['2026-06-02T07:00Z/capacity_conflict', '2026-06-02T07:30Z/capacity_conflict', '2026-06-02T08:00Z/capacity_conflict']);
    for (const a of 'alternatives' in d ? d.alternatives : []) expect(a.end - a.start).toBe(30 * MIN);
  });

  it('alternatives are on the owner-local quarter hour even in a +05:45 zone', () => {
    const r = rules({ timeZone: 'Asia/Kathmandu' });
    const start = at('2026-06-01T08:30+05:45');
    const d = arbitrate({ start, end: start + 60 * MIN, ...POLICY }, { now: NOW, rules: r, claims: [] });
    expect(altsOf(d)).toEqual(['2026-06-01T03:15Z/working_hours', '2026-06-01T04:15Z/working_hours', '2026-06-01T05:15Z/working_hours']);
  });

  it('no acceptable slot within 72 h -> reject with empty alternatives even for counter-proposable reasons', () => {
    const wall = claim(L('2026-05-25T00:00'), L('2026-06-10T00:00'), { priority: 99 });
    expect(run(req('2026-06-03T10:00', '2026-06-03T11:00'), { claims: [wall] })).toEqual({
      outcome: 'reject',
      reason: 'NO_CAPACITY',
      failedReason: 'NO_CAPACITY',
      alternatives: [],
      conflicts: [{ kind: 'booking', meeting_class: null, priority: 99, sacred: false }],
      warnings: [],
    });
  });

  it('non-counter-proposable failures still list alternatives with their reason_code', () => {
    const d = run(req('2026-06-01T10:00', '2026-06-01T11:00'), { claims: [claim(L('2026-06-01T10:00'), L('2026-06-01T11:00'), { sacred: true })] });
    expect(d).toMatchObject({ outcome: 'reject', reason: 'SACRED_MEETING' });
    expect(altsOf(d)).toEqual(['2026-06-01T07:00Z/sacred_meeting', '2026-06-01T09:00Z/sacred_meeting', '2026-06-01T10:00Z/sacred_meeting']);
  });

  it('every alternative is itself accepted by arbitrate', () => {
    const claims = [
      claim(L('2026-06-01T09:00'), L('2026-06-01T11:00'), { priority: 9 }),
      claim(L('2026-06-01T11:00'), L('2026-06-01T12:00'), { priority: 1 }),
      claim(L('2026-06-01T14:00'), L('2026-06-01T17:00'), { sacred: true }),
    ];
    const o = { rules: rules({ maxDailyMeetingHours: 6 }), claims };
    const d = run(req('2026-06-01T10:00', '2026-06-01T11:30'), o);
    expect('alternatives' in d && d.alternatives.length).toBe(3);
    for (const a of 'alternatives' in d ? d.alternatives : []) {
      expect(run({ ...POLICY, start: a.start, end: a.end }, o).outcome).toBe('accept');
    }
  });
});
