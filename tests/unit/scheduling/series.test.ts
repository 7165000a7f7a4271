/**
 * Recurring series expansion (server/domain/scheduling/series.ts): the same local time across
 * daylight-saving changes, the limits a series is held to, and a property test against an
 * independent engine: ical.js iterates the rule on floating local date-times and Temporal turns
 * each into an instant in the zone ('compatible', RFC 5545 3.3.5), in every zone of the DST matrix.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { Temporal } from 'temporal-polyfill';
import { expandSeries, SeriesError, SERIES_MAX_OCCURRENCES, shiftSeries } from '@/server/domain/scheduling/series';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/Santiago', 'America/Havana', 'Asia/Kathmandu', 'UTC'];
const MIN = 60_000;

const at = (zone: string, local: string) => Temporal.PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
const localOf = (zone: string, ms: number) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).toPlainDateTime().toString({ smallestUnit: 'minute' });

const DAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
/** Whether BYDAY / BYMONTHDAY (the only parts the property draws) select the date of `d`. */
function synchronized(d: Temporal.PlainDateTime, extra: string): boolean {
  const monthDays = /BYMONTHDAY=([\d,-]+)/.exec(extra)?.[1].split(',').map(Number);
  if (monthDays && !monthDays.some((n) => (n > 0 ? n : d.daysInMonth + 1 + n) === d.day)) return false;
  const byDay = /BYDAY=([\w,-]+)/.exec(extra)?.[1].split(',');
  if (!byDay) return true;
  return byDay.some((item) => {
    const m = /^(-?\d)?(\w\w)$/.exec(item)!;
    if (DAY_CODES.indexOf(m[2]) + 1 !== d.dayOfWeek) return false;
    if (!m[1]) return true;
    const n = Number(m[1]);
    return n > 0 ? Math.ceil(d.day / 7) === n : Math.ceil((d.daysInMonth - d.day + 1) / 7) === -n;
  });
}

describe('expandSeries', () => {
  it('keeps a weekly meeting at the same local time across the end of summer time', () => {
    const zone = 'America/New_York';
    const start = at(zone, '2026-10-20T10:00');
    const occ = expandSeries({ rrule: 'FREQ=WEEKLY;COUNT=4', start, end: start + 30 * MIN, timeZone: zone });
    expect(occ.map((o) => localOf(zone, o.start))).toEqual(['2026-10-20T10:00', '2026-10-27T10:00', '2026-11-03T10:00', '2026-11-10T10:00']);
    expect(occ[2].start - occ[1].start).toBe(7 * 24 * 60 * MIN + 60 * MIN); // the week with the change is an hour longer
    expect(occ.every((o) => o.end - o.start === 30 * MIN)).toBe(true);
    expect(occ.map((o) => o.index)).toEqual([0, 1, 2, 3]);
  });

  it('expands BYDAY and UNTIL in the owner\'s zone (UNTIL as a local date includes that day)', () => {
    const zone = 'Europe/Berlin';
    const start = at(zone, '2027-03-23T09:00'); // a Tuesday
    const occ = expandSeries({ rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270401', start, end: start + 45 * MIN, timeZone: zone });
    expect(occ.map((o) => localOf(zone, o.start))).toEqual(['2027-03-23T09:00', '2027-03-25T09:00', '2027-03-30T09:00', '2027-04-01T09:00']);
  });

  it.each([
    ['FREQ=WEEKLY', /must end/],
    [`FREQ=WEEKLY;COUNT=${SERIES_MAX_OCCURRENCES + 1}`, /COUNT is at most 52/],
    ['FREQ=WEEKLY;COUNT=3;UNTIL=20270101', /not both/],
    ['FREQ=WEEKLY;UNTIL=20281201', /UNTIL is at most 366 days/],
    ['FREQ=DAILY;UNTIL=20270301', /makes \d+ occurrences; a series has at most 52/],
    ['FREQ=MONTHLY;INTERVAL=12;COUNT=3', /spans at most a year/],
    ['FREQ=YEARLY;COUNT=2', /FREQ/],
    ['FREQ=WEEKLY;COUNT=2;BYHOUR=9', /BYHOUR/],
    ['DTSTART=20261201T090000;FREQ=WEEKLY;COUNT=2', /DTSTART/],
    ['FREQ=WEEKLY;UNTIL=20261101', /before the first occurrence/],
  ])('refuses %s', (rrule, message) => {
    const start = at('UTC', '2026-12-01T09:00');
    const run = () => expandSeries({ rrule, start, end: start + 30 * MIN, timeZone: 'UTC' });
    expect(run).toThrow(SeriesError);
    expect(run).toThrow(message);
  });

  it('refuses an occurrence that does not end after it starts', () => {
    const start = at('UTC', '2026-12-01T09:00');
    expect(() => expandSeries({ rrule: 'FREQ=DAILY;COUNT=2', start, end: start, timeZone: 'UTC' })).toThrow(/end after/);
  });

  it('matches ical.js with Temporal in every zone of the DST matrix', () => {
    const days = DAY_CODES;
    const rule = fc.oneof(
      fc.record({ freq: fc.constant('DAILY'), interval: fc.integer({ min: 1, max: 6 }), extra: fc.constant('') }),
      fc.record({
        freq: fc.constant('WEEKLY'),
        interval: fc.integer({ min: 1, max: 3 }),
        extra: fc.uniqueArray(fc.constantFrom(...days), { minLength: 0, maxLength: 3 }).map((d) => (d.length ? `;BYDAY=${d.join(',')}` : '')),
      }),
      fc.record({
        freq: fc.constant('MONTHLY'),
        interval: fc.integer({ min: 1, max: 2 }),
        extra: fc.oneof(
          fc.constant(''),
          fc.uniqueArray(fc.integer({ min: 1, max: 31 }), { minLength: 1, maxLength: 3 }).map((d) => `;BYMONTHDAY=${d.join(',')}`),
          fc.tuple(fc.constantFrom(1, 2, -1), fc.constantFrom(...days)).map(([n, d]) => `;BYDAY=${n}${d}`),
        ),
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        rule,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 364 }),
        fc.integer({ min: 0, max: 95 }),
        (zone, r, count, dayOffset, quarter) => {
          const first = Temporal.PlainDate.from('2026-12-01').add({ days: dayOffset });
          const local = first.toPlainDateTime({ hour: Math.floor(quarter / 4), minute: (quarter % 4) * 15 });
          const start = local.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
          // A wall time in a gap is moved by the zone; the series starts at the moved time in both engines.
          const dtstart = Temporal.Instant.fromEpochMilliseconds(start).toZonedDateTimeISO(zone).toPlainDateTime();
          const rrule = `FREQ=${r.freq};INTERVAL=${r.interval}${r.extra};COUNT=${count}`;
          let ours: number[];
          try {
            ours = expandSeries({ rrule, start, end: start + 30 * MIN, timeZone: zone }).map((o) => o.start);
          } catch (err) {
            if (err instanceof SeriesError && /spans at most a year/.test(err.message)) return; // beyond a year: not compared
            if (!(err instanceof SeriesError && /does not produce/.test(err.message))) throw err;
            ours = []; // refused: the start is not one of the rule's occurrences, which ical.js must confirm below
          }
          // ical.js on the same rule without COUNT, from the start: its occurrences after the start, and whether the start is one.
          const open = rrule.replace(/;COUNT=\d+$/, '');
          const it = ICAL.Recur.fromString(open).iterator(ICAL.Time.fromDateTimeString(dtstart.toString({ smallestUnit: 'second' })));
          const theirs: number[] = [];
          for (let t = it.next(); t && theirs.length < count + 1; t = it.next()) {
            theirs.push(Temporal.PlainDateTime.from({ year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute }).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds);
          }
          // Whether the rule produces the start, read with Temporal's calendar (not the engine's own arithmetic).
          const produced = synchronized(dtstart, r.extra);
          expect(ours).toEqual(produced ? theirs.slice(0, count) : []);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);
});

describe('shiftSeries', () => {
  it('moves every occurrence to the new local time across the spring-forward, with the new duration', () => {
    const zone = 'Europe/Berlin';
    const spans = ['2027-03-23T10:00', '2027-03-30T10:00', '2027-04-06T10:00'].map((l) => ({ start: at(zone, l), end: at(zone, l) + 60 * MIN }));
    const moved = shiftSeries(zone, { from: spans[0].start, to: { start: at(zone, '2027-03-24T11:30'), end: at(zone, '2027-03-24T12:15') } }, spans);
    expect(moved.map((s) => localOf(zone, s.start))).toEqual(['2027-03-24T11:30', '2027-03-31T11:30', '2027-04-07T11:30']);
    expect(moved.map((s) => (s.end - s.start) / MIN)).toEqual([45, 45, 45]);
  });

  it('matches Temporal wall-clock arithmetic (days and minutes added to each local start) in every zone of the DST matrix', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 364 }), fc.integer({ min: 8 * 4, max: 18 * 4 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -16, max: 16 }), (zone, dayOffset, quarter, days, quarters) => {
        const first = Temporal.PlainDate.from('2026-12-01').add({ days: dayOffset }).toPlainDateTime({ hour: Math.floor(quarter / 4), minute: (quarter % 4) * 15 });
        const locals = [0, 1, 2, 3].map((w) => first.add({ weeks: w }));
        const spans = locals.map((l) => ({ start: at(zone, l.toString()), end: at(zone, l.toString()) + 30 * MIN }));
        const shift = (l: Temporal.PlainDateTime) => l.add({ days }).add({ minutes: quarters * 15 });
        const to = at(zone, shift(locals[0]).toString());
        const moved = shiftSeries(zone, { from: spans[0].start, to: { start: to, end: to + 45 * MIN } }, spans);
        // Local starts read back from the instants (a start in a gap reads as the zone moves it, in both).
        expect(moved.map((s) => localOf(zone, s.start))).toEqual(locals.map((l) => localOf(zone, at(zone, shift(l).toString()))));
      }),
      { numRuns: 200 },
    );
  });
});
