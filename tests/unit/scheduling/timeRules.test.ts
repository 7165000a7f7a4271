import { describe, expect, it } from 'vitest';
import {
  bookedMinutesOnLocalDay,
  isWorkingDay,
  localDayBounds,
  workingIntervals,
} from '@/server/domain/scheduling';
import { at, claim, rules, show, week, H, MIN } from './helpers';

const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const nineToFive = (timeZone: string) =>
  rules({ timeZone, workingHours: week([{ start: '09:00', end: '17:00' }], [...ALL_DAYS]) });

describe('workingIntervals across DST (09:00-17:00 local stays 09:00-17:00 local)', () => {
  it.each([
    // Europe/Berlin, spring forward 2026-03-29 (CET +01 -> CEST +02)
    ['Europe/Berlin', '2026-03-28', '2026-03-28T08:00Z', '2026-03-28T16:00Z'],
    ['Europe/Berlin', '2026-03-29', '2026-03-29T07:00Z', '2026-03-29T15:00Z'],
    ['Europe/Berlin', '2026-03-30', '2026-03-30T07:00Z', '2026-03-30T15:00Z'],
    // Europe/Berlin, fall back 2026-10-25 (CEST -> CET)
    ['Europe/Berlin', '2026-10-24', '2026-10-24T07:00Z', '2026-10-24T15:00Z'],
    ['Europe/Berlin', '2026-10-25', '2026-10-25T08:00Z', '2026-10-25T16:00Z'],
    ['Europe/Berlin', '2026-10-26', '2026-10-26T08:00Z', '2026-10-26T16:00Z'],
    // America/New_York, spring forward 2026-03-08 (EST -05 -> EDT -04)
    ['America/New_York', '2026-03-07', '2026-03-07T14:00Z', '2026-03-07T22:00Z'],
    ['America/New_York', '2026-03-08', '2026-03-08T13:00Z', '2026-03-08T21:00Z'],
    ['America/New_York', '2026-03-09', '2026-03-09T13:00Z', '2026-03-09T21:00Z'],
    // America/New_York, fall back 2026-11-01 (EDT -> EST)
    ['America/New_York', '2026-10-31', '2026-10-31T13:00Z', '2026-10-31T21:00Z'],
    ['America/New_York', '2026-11-01', '2026-11-01T14:00Z', '2026-11-01T22:00Z'],
    ['America/New_York', '2026-11-02', '2026-11-02T14:00Z', '2026-11-02T22:00Z'],
  ])('%s %s -> %s .. %s', (tz, date, start, end) => {
    const day = localDayBounds(tz, at(`${date}T12:00:00${tz === 'Europe/Berlin' ? '+01:00' : '-05:00'}`));
    expect(workingIntervals(nineToFive(tz), day.start, day.end)).toEqual([{ start: at(start), end: at(end) }]);
  });

  it('returns one interval per working day over a week spanning the transition', () => {
    const list = workingIntervals(rules(), at('2026-03-26T00:00Z'), at('2026-04-01T00:00Z'));
    expect(show(list)).toEqual([
      '2026-03-26T08:00Z/2026-03-26T16:00Z',
      '2026-03-27T08:00Z/2026-03-27T16:00Z',
      '2026-03-30T07:00Z/2026-03-30T15:00Z',
      '2026-03-31T07:00Z/2026-03-31T15:00Z',
    ]);
  });

  it('clips to [from, to)', () => {
    const list = workingIntervals(rules(), at('2026-03-26T10:00Z'), at('2026-03-26T12:00Z'));
    expect(show(list)).toEqual(['2026-03-26T10:00Z/2026-03-26T12:00Z']);
  });
});

describe('non-existent and repeated local times', () => {
  const sundayOnly = (ranges: { start: string; end: string }[]) =>
    rules({ workingHours: week(ranges, ['sun']) });
  const springDay = localDayBounds('Europe/Berlin', at('2026-03-29T10:00Z'));
  const fallDay = localDayBounds('Europe/Berlin', at('2026-10-25T10:00Z'));

  it('a 02:00-03:00 range on the spring-forward day collapses', () => {
    expect(workingIntervals(sundayOnly([{ start: '02:00', end: '03:00' }]), springDay.start, springDay.end)).toEqual([]);
  });

  it('01:00-04:00 on the spring-forward day is 01:00+01:00 .. 04:00+02:00 (2 real hours)', () => {
    const list = workingIntervals(sundayOnly([{ start: '01:00', end: '04:00' }]), springDay.start, springDay.end);
    expect(list).toEqual([{ start: at('2026-03-29T01:00+01:00'), end: at('2026-03-29T04:00+02:00') }]);
    expect(list[0].end - list[0].start).toBe(2 * H);
  });

  it('a range starting inside the gap starts at the transition (first instant the clock shows >= the time)', () => {
    const list = workingIntervals(sundayOnly([{ start: '02:30', end: '04:00' }]), springDay.start, springDay.end);
    expect(list).toEqual([{ start: at('2026-03-29T03:00+02:00'), end: at('2026-03-29T04:00+02:00') }]);
  });

  it('in the fall-back fold a boundary is the earlier occurrence', () => {
    const list = workingIntervals(sundayOnly([{ start: '02:30', end: '04:00' }]), fallDay.start, fallDay.end);
    expect(list).toEqual([{ start: at('2026-10-25T02:30+02:00'), end: at('2026-10-25T04:00+01:00') }]);
    expect(list[0].end - list[0].start).toBe(2.5 * H);
  });

  it('00:00-24:00 covers the whole 23 h / 25 h day', () => {
    const all = [{ start: '00:00', end: '24:00' }];
    expect(workingIntervals(sundayOnly(all), springDay.start, springDay.end)).toEqual([springDay]);
    expect(workingIntervals(sundayOnly(all), fallDay.start, fallDay.end)).toEqual([fallDay]);
  });

  it('America/New_York: 01:00-04:00 on 2026-03-08 is 01:00-05:00 .. 04:00-04:00', () => {
    const r = rules({ timeZone: 'America/New_York', workingHours: week([{ start: '01:00', end: '04:00' }], ['sun']) });
    const day = localDayBounds('America/New_York', at('2026-03-08T12:00Z'));
    expect(workingIntervals(r, day.start, day.end)).toEqual([
      { start: at('2026-03-08T01:00-05:00'), end: at('2026-03-08T04:00-04:00') },
    ]);
  });
});

describe('merging and configuration', () => {
  it('a range ending 24:00 merges with one starting 00:00 the next day', () => {
    const r = rules({
      workingHours: { ...week([]), mon: [{ start: '20:00', end: '24:00' }], tue: [{ start: '00:00', end: '02:00' }] },
    });
    expect(show(workingIntervals(r, at('2026-06-01T00:00Z'), at('2026-06-03T00:00Z')))).toEqual([
      '2026-06-01T18:00Z/2026-06-02T00:00Z',
    ]);
  });

  it('several ranges per day, overlapping ones merged', () => {
    const r = rules({
      workingHours: week([
        { start: '09:00', end: '12:00' },
        { start: '11:00', end: '12:30' },
        { start: '14:00', end: '18:00' },
      ]),
    });
    expect(show(workingIntervals(r, at('2026-06-01T00:00Z'), at('2026-06-02T00:00Z')))).toEqual([
      '2026-06-01T07:00Z/2026-06-01T10:30Z',
      '2026-06-01T12:00Z/2026-06-01T16:00Z',
    ]);
  });

  it('null working hours = the whole range', () => {
    const r = rules({ workingHours: null });
    expect(workingIntervals(r, 1000, 5000)).toEqual([{ start: 1000, end: 5000 }]);
    expect(isWorkingDay(r, at('2026-06-06T12:00Z'))).toBe(true); // a Saturday
  });

  it('isWorkingDay uses the owner-local date, not UTC', () => {
    // 2026-06-05T23:30Z is Saturday 01:30 in Berlin, Friday in UTC.
    expect(isWorkingDay(rules(), at('2026-06-05T23:30Z'))).toBe(false);
    expect(isWorkingDay(rules(), at('2026-06-05T21:30Z'))).toBe(true);
    // Tokyo Monday 08:00 = Sunday 23:00Z
    expect(isWorkingDay(rules({ timeZone: 'Asia/Tokyo' }), at('2026-06-07T23:00Z'))).toBe(true);
  });

  it('every weekday empty = no working days', () => {
    const r = rules({ workingHours: week([]) });
    expect(workingIntervals(r, at('2026-06-01T00:00Z'), at('2026-06-08T00:00Z'))).toEqual([]);
    expect(isWorkingDay(r, at('2026-06-01T12:00Z'))).toBe(false);
  });
});

describe('localDayBounds', () => {
  it.each([
    ['Europe/Berlin', '2026-03-29T12:00Z', '2026-03-28T23:00Z', '2026-03-29T22:00Z', 23],
    ['Europe/Berlin', '2026-10-25T12:00Z', '2026-10-24T22:00Z', '2026-10-25T23:00Z', 25],
    ['Europe/Berlin', '2026-06-01T12:00Z', '2026-05-31T22:00Z', '2026-06-01T22:00Z', 24],
    ['America/New_York', '2026-03-08T12:00Z', '2026-03-08T05:00Z', '2026-03-09T04:00Z', 23],
    ['America/New_York', '2026-11-01T12:00Z', '2026-11-01T04:00Z', '2026-11-02T05:00Z', 25],
    ['America/New_York', '2026-11-02T03:00Z', '2026-11-01T04:00Z', '2026-11-02T05:00Z', 25],
  ])('%s at %s', (tz, instant, start, end, hours) => {
    const b = localDayBounds(tz, at(instant));
    expect(b).toEqual({ start: at(start), end: at(end) });
    expect((b.end - b.start) / H).toBe(hours);
  });

  it('the end instant belongs to the next day (half-open)', () => {
    const b = localDayBounds('Europe/Berlin', at('2026-06-01T12:00Z'));
    expect(localDayBounds('Europe/Berlin', b.end).start).toBe(b.end);
    expect(localDayBounds('Europe/Berlin', b.end - 1)).toEqual(b);
  });
});

describe('bookedMinutesOnLocalDay', () => {
  const day = localDayBounds('Europe/Berlin', at('2026-06-02T12:00Z')); // Tue 2026-06-02 local

  it('sums bookings and holds on the day', () => {
    const claims = [
      claim(at('2026-06-02T08:00Z'), at('2026-06-02T09:00Z')),
      claim(at('2026-06-02T10:00Z'), at('2026-06-02T10:30Z'), { kind: 'hold' }),
      claim(at('2026-06-03T10:00Z'), at('2026-06-03T10:30Z')), // next day
    ];
    expect(bookedMinutesOnLocalDay(claims, 'Europe/Berlin', day.start, day.end)).toBe(90);
  });

  it('a claim crossing local midnight counts only its part on each day', () => {
    const c = claim(at('2026-06-02T23:00+02:00'), at('2026-06-03T01:30+02:00'));
    expect(bookedMinutesOnLocalDay([c], 'Europe/Berlin', day.start, day.end)).toBe(60);
    const next = localDayBounds('Europe/Berlin', day.end);
    expect(bookedMinutesOnLocalDay([c], 'Europe/Berlin', next.start, next.end)).toBe(90);
  });

  it('a window hold counts its duration, not the held window (capped by its part of the day)', () => {
    const hold = claim(at('2026-06-02T07:00Z'), at('2026-06-02T15:00Z'), { kind: 'hold', countedMinutes: 45 });
    expect(bookedMinutesOnLocalDay([hold], 'Europe/Berlin', day.start, day.end)).toBe(45);
    const spanning = claim(at('2026-06-02T21:30Z'), at('2026-06-03T02:00Z'), { kind: 'hold', countedMinutes: 60 });
    expect(bookedMinutesOnLocalDay([spanning], 'Europe/Berlin', day.start, day.end)).toBe(30);
  });

  it('honours excludeIds and derives the day from the time zone when dayEnd is omitted', () => {
    const a = claim(at('2026-06-02T08:00Z'), at('2026-06-02T09:00Z'), { id: 'a' });
    const b = claim(at('2026-06-02T10:00Z'), at('2026-06-02T10:15Z'), { id: 'b' });
    expect(bookedMinutesOnLocalDay([a, b], 'Europe/Berlin', day.start, day.end, ['a'])).toBe(15);
    expect(bookedMinutesOnLocalDay([a, b], 'Europe/Berlin', at('2026-06-02T12:00Z'))).toBe(75);
  });

  it('counts the 25 h fall-back day fully', () => {
    const fall = localDayBounds('Europe/Berlin', at('2026-10-25T12:00Z'));
    const c = claim(fall.start, fall.end);
    expect(bookedMinutesOnLocalDay([c], 'Europe/Berlin', fall.start, fall.end)).toBe(25 * 60);
    expect(MIN).toBe(60_000);
  });
});
