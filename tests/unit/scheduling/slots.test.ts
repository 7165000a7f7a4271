import { describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import {
  arbitrate,
  findHoldStretch,
  localDayBounds,
  nextAvailable,
  searchSlots,
  windowTooNarrow,
  type Claim,
  type OwnerRules,
  type SearchSlotsParams,
} from '@/server/domain/scheduling';
import { at, claim, iso, POLICY, rules, show, week, H, MIN } from './helpers';

const NOW = at('2026-05-31T00:00Z');
const L = (local: string) => at(`${local}+02:00`); // Berlin summer time
const ALL = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

function search(over: Partial<SearchSlotsParams> & { window: { start: number; end: number } }) {
  return searchSlots({ rules: rules(), claims: [], now: NOW, durationMinutes: 30, request: POLICY, maxResults: 500, ...over });
}
const localLabel = (tz: string, ms: number) =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).toPlainTime().toString().slice(0, 5);

describe('searchSlots: grid and working hours', () => {
  it('a Berlin Monday 09:00-17:00 gives 31 half-hour slots on the quarter hour', () => {
    const r = search({ window: { start: L('2026-06-01T00:00'), end: L('2026-06-02T00:00') } });
    expect(r.slots).toHaveLength(31);
    expect(iso(r.slots[0].start)).toBe('2026-06-01T07:00Z');
    expect(iso(r.slots[30].start)).toBe('2026-06-01T14:30Z');
    expect(iso(r.slots[30].end)).toBe('2026-06-01T15:00Z');
    expect(r.warnings).toEqual([]);
    expect(r.noSlots).toBeUndefined();
  });

  it.each([
    ['Europe/Berlin', '2026-03-29', '2026-03-29T07:00Z', '2026-03-29T14:30Z'],
    ['Europe/Berlin', '2026-10-25', '2026-10-25T08:00Z', '2026-10-25T15:30Z'],
    ['America/New_York', '2026-03-08', '2026-03-08T13:00Z', '2026-03-08T20:30Z'],
    ['America/New_York', '2026-11-01', '2026-11-01T14:00Z', '2026-11-01T21:30Z'],
  ])('DST day %s %s keeps 09:00-17:00 local', (tz, date, first, last) => {
    const day = localDayBounds(tz, at(`${date}T12:00Z`));
    const r = search({
      rules: rules({ timeZone: tz, workingHours: week([{ start: '09:00', end: '17:00' }], [...ALL]) }),
      now: at('2026-01-01T00:00Z'),
      window: day,
    });
    expect(r.slots).toHaveLength(31);
    expect(iso(r.slots[0].start)).toBe(first);
    expect(iso(r.slots[30].start)).toBe(last);
    expect(r.slots.every((s) => localLabel(tz, s.start) >= '09:00' && localLabel(tz, s.end) <= '17:00')).toBe(true);
  });

  it('the repeated hour on fall-back day yields both occurrences; the missing hour none', () => {
    const r = rules({ workingHours: week([{ start: '00:00', end: '04:00' }], ['sun']) });
    const fall = search({ rules: r, now: at('2026-01-01T00:00Z'), durationMinutes: 15, window: localDayBounds('Europe/Berlin', at('2026-10-25T12:00Z')) });
    expect(fall.slots).toHaveLength(20); // 5 real hours
    expect(fall.slots.map((s) => localLabel('Europe/Berlin', s.start)).slice(8, 16)).toEqual([
      '02:00', '02:15', '02:30', '02:45', '02:00', '02:15', '02:30', '02:45',
    ]);
    const spring = search({ rules: r, now: at('2026-01-01T00:00Z'), durationMinutes: 15, window: localDayBounds('Europe/Berlin', at('2026-03-29T12:00Z')) });
    expect(spring.slots).toHaveLength(12); // 3 real hours
    expect(spring.slots.map((s) => localLabel('Europe/Berlin', s.start))).not.toContain('02:00');
  });

  it('aligns to local multiples of the step from local midnight, not to the window start', () => {
    const window = { start: L('2026-06-01T10:07'), end: L('2026-06-01T12:00') };
    expect(search({ window }).slots.map((s) => localLabel('Europe/Berlin', s.start))[0]).toBe('10:15');
    expect(search({ window: { start: L('2026-06-01T00:00'), end: L('2026-06-01T11:00') }, stepMinutes: 45 }).slots.map((s) => localLabel('Europe/Berlin', s.start))).toEqual(['09:00', '09:45', '10:30']);
    expect(search({ window, stepMinutes: 20, durationMinutes: 60 }).slots.map((s) => localLabel('Europe/Berlin', s.start))).toEqual(['10:20', '10:40', '11:00']);
    const kathmandu = search({ rules: rules({ timeZone: 'Asia/Kathmandu' }), window: { start: at('2026-06-01T03:00Z'), end: at('2026-06-01T04:00Z') } });
    expect(kathmandu.slots.map((s) => localLabel('Asia/Kathmandu', s.start))).toEqual(['09:00', '09:15']); // 08:45-09:45 local
  });

  it('slots lie wholly inside the window, start at or after now, and respect maxResults', () => {
    const window = { start: L('2026-06-01T09:00'), end: L('2026-06-01T10:00') };
    expect(show(search({ window }).slots)).toEqual([
      '2026-06-01T07:00Z/2026-06-01T07:30Z', '2026-06-01T07:15Z/2026-06-01T07:45Z', '2026-06-01T07:30Z/2026-06-01T08:00Z',
    ]);
    expect(search({ window, now: L('2026-06-01T09:10') }).slots.map((s) => iso(s.start))).toEqual(['2026-06-01T07:15Z', '2026-06-01T07:30Z']);
    expect(search({ window: { start: L('2026-06-01T00:00'), end: L('2026-06-08T00:00') }, maxResults: 4 }).slots).toHaveLength(4);
  });

  it('marks slots that would preempt, and omits them when the agent cannot preempt', () => {
    const claims = [claim(L('2026-06-01T09:30'), L('2026-06-01T10:00'), { priority: 1 })];
    const window = { start: L('2026-06-01T09:00'), end: L('2026-06-01T10:30') };
    expect(search({ window, claims }).slots.map((s) => `${localLabel('Europe/Berlin', s.start)}:${s.preempts}`)).toEqual([
      '09:00:false', '09:15:true', '09:30:true', '09:45:true', '10:00:false',
    ]);
    expect(search({ window, claims, request: { ...POLICY, agentCanPreempt: false } }).slots).toHaveLength(2);
  });

  it('every slot is accepted by arbitrate with the same request', () => {
    const claims: Claim[] = [
      claim(L('2026-06-01T10:00'), L('2026-06-01T11:00'), { priority: 9 }),
      claim(L('2026-06-01T11:00'), L('2026-06-01T11:30'), { priority: 1 }),
      claim(L('2026-06-02T09:00'), L('2026-06-02T12:00'), { sacred: true }),
    ];
    const r = rules({ maxDailyMeetingHours: 4, hardBlocks: [{ days: ['mon', 'tue'], start: '12:00', end: '13:00' }] });
    const { slots } = search({ rules: r, claims, window: { start: L('2026-06-01T00:00'), end: L('2026-06-03T00:00') }, durationMinutes: 45 });
    expect(slots.length).toBeGreaterThan(10);
    for (const s of slots) {
      const d = arbitrate({ start: s.start, end: s.end, ...POLICY }, { now: NOW, rules: r, claims });
      expect(d.outcome).toBe('accept');
      expect(d.outcome === 'accept' && d.preempt.length > 0).toBe(s.preempts);
    }
  });
});

describe('searchSlots: no slots and their reason_code', () => {
  const lunch = rules({ hardBlocks: [{ days: ['mon'], start: '12:00', end: '13:00' }] });
  it.each<[string, OwnerRules, Claim[], string, string, string]>([
    ['weekend only -> OFF_DAY', rules(), [], '2026-06-06T00:00', '2026-06-08T00:00', 'OFF_DAY'],
    ['Monday evening -> WORKING_HOURS', rules(), [], '2026-06-01T18:00', '2026-06-01T23:00', 'WORKING_HOURS'],
    ['Friday evening + Saturday -> WORKING_HOURS', rules(), [], '2026-06-05T17:00', '2026-06-06T23:00', 'WORKING_HOURS'],
    ['lunch block -> HARD_BLOCK', lunch, [], '2026-06-01T12:00', '2026-06-01T13:00', 'HARD_BLOCK'],
    ['daily limit already reached -> DAILY_HOURS_LIMIT', rules({ maxDailyMeetingHours: 1 }), [claim(L('2026-06-01T09:00'), L('2026-06-01T10:00'))], '2026-06-01T14:00', '2026-06-01T16:00', 'DAILY_HOURS_LIMIT'],
    ['busy and limit reached -> DAILY_HOURS_LIMIT', rules({ maxDailyMeetingHours: 1 }), [claim(L('2026-06-01T14:00'), L('2026-06-01T15:00'), { priority: 9 })], '2026-06-01T14:00', '2026-06-01T15:00', 'DAILY_HOURS_LIMIT'],
    ['busy -> NO_FREE_SLOTS', rules(), [claim(L('2026-06-01T14:00'), L('2026-06-01T16:00'), { priority: 9 })], '2026-06-01T14:00', '2026-06-01T16:00', 'NO_FREE_SLOTS'],
    ['busy with sacred meetings -> NO_FREE_SLOTS', rules({ maxDailyMeetingHours: 8 }), [claim(L('2026-06-01T14:00'), L('2026-06-01T16:00'), { sacred: true })], '2026-06-01T14:00', '2026-06-01T16:00', 'NO_FREE_SLOTS'],
    ['window entirely in the past -> NO_FREE_SLOTS', rules(), [], '2026-05-20T09:00', '2026-05-20T17:00', 'NO_FREE_SLOTS'],
  ])('%s', (_name, r, claims, from, to, reason) => {
    const res = search({ rules: r, claims, window: { start: L(from), end: L(to) } });
    expect(res.slots).toEqual([]);
    expect(res.noSlots).toEqual({ reason_code: reason });
  });

  it('carries the warning when working hours are not configured', () => {
    const res = search({ rules: rules({ workingHours: null }), window: { start: L('2026-06-06T03:00'), end: L('2026-06-06T04:00') } });
    expect(res.warnings).toEqual(['WORKING_HOURS_NOT_CONFIGURED']);
    expect(res.slots).toHaveLength(3);
  });
});

describe('nextAvailable', () => {
  const base = { rules: rules({ hardBlocks: [{ days: ['mon'], start: '12:00', end: '13:00' }] }), claims: [] as Claim[], now: NOW, durationMinutes: 30, request: POLICY };
  it('skips a hard block', () => {
    expect(nextAvailable({ ...base, from: L('2026-06-01T12:00'), latestStart: L('2026-06-01T13:00') + 72 * H })).toEqual({
      start: L('2026-06-01T13:00'),
      end: L('2026-06-01T13:30'),
    });
  });
  it('skips the weekend and busy time', () => {
    const claims = [claim(L('2026-06-08T09:00'), L('2026-06-08T10:00'), { priority: 9 })];
    expect(nextAvailable({ ...base, claims, from: L('2026-06-05T17:00'), latestStart: L('2026-06-05T18:00') + 72 * H })).toEqual({
      start: L('2026-06-08T10:00'),
      end: L('2026-06-08T10:30'),
    });
  });
  it('latestStart is inclusive: null when nothing starts by it; a slot starting exactly at it counts and may end after it', () => {
    expect(nextAvailable({ ...base, from: L('2026-06-05T17:00'), latestStart: L('2026-06-08T09:00') - 1 })).toBeNull();
    expect(nextAvailable({ ...base, from: L('2026-06-05T17:00'), latestStart: L('2026-06-08T09:00') })).toEqual({
      start: L('2026-06-08T09:00'),
      end: L('2026-06-08T09:30'),
    });
  });
  it('never returns a slot before now', () => {
    const now = L('2026-06-01T09:20');
    expect(nextAvailable({ ...base, now, from: L('2026-06-01T09:00'), latestStart: L('2026-06-02T00:00') })?.start).toBe(L('2026-06-01T09:30'));
  });
});

describe('findHoldStretch and windowTooNarrow', () => {
  const r = rules({ hardBlocks: [{ days: ['mon'], start: '12:00', end: '13:00' }] });
  const claims = [
    claim(L('2026-06-01T10:00'), L('2026-06-01T11:00'), { priority: 9 }),
    claim(L('2026-06-01T11:30'), L('2026-06-01T12:00'), { priority: 0 }),
  ];
  const window = { start: L('2026-06-01T08:00'), end: L('2026-06-01T18:00') };
  const base = { rules: r, claims, now: NOW, window, request: POLICY };

  it('takes the earliest maximal free stretch that fits, clipped to working time', () => {
    expect(findHoldStretch({ ...base, durationMinutes: 60 })).toEqual({ start: L('2026-06-01T09:00'), end: L('2026-06-01T10:00') });
    // 11:00-11:30 is too short; the lower-priority claim is not preempted by a window hold
    expect(findHoldStretch({ ...base, durationMinutes: 90 })).toEqual({ start: L('2026-06-01T13:00'), end: L('2026-06-01T17:00') });
  });

  it('clips to now', () => {
    expect(findHoldStretch({ ...base, now: L('2026-06-01T09:10'), durationMinutes: 30 })).toEqual({ start: L('2026-06-01T09:10'), end: L('2026-06-01T10:00') });
  });

  it('skips days whose daily limit is reached', () => {
    const limited = rules({ maxDailyMeetingHours: 1.5 });
    const two = { start: L('2026-06-01T08:00'), end: L('2026-06-02T18:00') };
    expect(findHoldStretch({ ...base, rules: limited, window: two, durationMinutes: 60 })).toEqual({ start: L('2026-06-02T09:00'), end: L('2026-06-02T17:00') });
  });

  it('null when nothing fits', () => {
    expect(findHoldStretch({ ...base, durationMinutes: 300 })).toBeNull();
    expect(findHoldStretch({ ...base, window: { start: L('2026-06-06T09:00'), end: L('2026-06-06T17:00') }, durationMinutes: 30 })).toBeNull();
  });

  it('windowTooNarrow', () => {
    expect(windowTooNarrow({ start: 0, end: 29 * MIN }, 30)).toBe(true);
    expect(windowTooNarrow({ start: 0, end: 30 * MIN }, 30)).toBe(false);
  });
});
