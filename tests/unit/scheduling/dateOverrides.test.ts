import { describe, expect, it } from 'vitest';
import { arbitrate, searchSlots, validateOwnerRules, workingIntervals, type DateOverride } from '@/server/domain/scheduling';
import { at, iso, POLICY, rules, show } from './helpers';

/**
 * Date overrides (docs/arbitration.md "Date overrides"): a local date's hours replace its
 * weekday's, as local wall time in the owner's zone; [] makes it a day off.
 */
const NOW = at('2026-01-01T00:00Z');
const withOverrides = (dateOverrides: DateOverride[], timeZone = 'Europe/Berlin') => rules({ timeZone, dateOverrides });
/** The rule that refused (or the outcome when nothing did). */
const failed = (d: ReturnType<typeof arbitrate>) => (d.outcome === 'reject' || d.outcome === 'counter_propose' ? d.failedReason : d.outcome);
const decide = (start: string, end: string, r = withOverrides([])) => arbitrate({ start: at(start), end: at(end), ...POLICY }, { now: NOW, rules: r, claims: [] });

describe('working intervals with date overrides (table over zones and DST dates)', () => {
  it.each([
    // Saturday opened, winter time (+01:00).
    ['Europe/Berlin', '2026-02-07', [{ start: '10:00', end: '12:00' }], ['2026-02-07T09:00Z/2026-02-07T11:00Z']],
    // Spring-forward Sunday: 01:00-04:00 local is two real hours (02:00-03:00 does not exist).
    ['Europe/Berlin', '2026-03-29', [{ start: '01:00', end: '04:00' }], ['2026-03-29T00:00Z/2026-03-29T02:00Z']],
    // Fall-back Sunday: 01:00-04:00 local is four real hours (02:00-03:00 happens twice).
    ['Europe/Berlin', '2026-10-25', [{ start: '01:00', end: '04:00' }], ['2026-10-24T23:00Z/2026-10-25T03:00Z']],
    // New York spring forward, a weekday-like split day.
    ['America/New_York', '2026-03-08', [{ start: '08:00', end: '10:00' }, { start: '14:00', end: '15:00' }], ['2026-03-08T12:00Z/2026-03-08T14:00Z', '2026-03-08T18:00Z/2026-03-08T19:00Z']],
    // A Monday made a day off.
    ['Europe/Berlin', '2026-02-09', [], []],
    // A Monday with other hours.
    ['Europe/Berlin', '2026-02-09', [{ start: '13:00', end: '24:00' }], ['2026-02-09T12:00Z/2026-02-09T23:00Z']],
  ])('%s %s', (tz, date, hours, expected) => {
    const r = withOverrides([{ date, working_hours: hours }], tz);
    const from = at(`${date}T00:00Z`) - 12 * 3_600_000;
    const to = at(`${date}T00:00Z`) + 36 * 3_600_000;
    // Only that date changes; the weekly hours of its neighbours (Mon-Fri 09-17) stay.
    const around = workingIntervals(rules({ timeZone: tz }), from, to).filter((w) => !iso(w.start).startsWith(date));
    const got = workingIntervals(r, from, to);
    expect(show(got.filter((w) => !around.some((a) => a.start === w.start)))).toEqual(expected);
    for (const a of around) expect(got).toContainEqual(a);
  });
});

describe('the arbiter with date overrides', () => {
  const r = withOverrides([
    { date: '2026-02-07', working_hours: [{ start: '10:00', end: '12:00' }] }, // a Saturday opened
    { date: '2026-02-09', working_hours: [] }, // a Monday off
    { date: '2026-02-10', working_hours: [{ start: '13:00', end: '15:00' }] }, // a Tuesday afternoon only
  ]);

  it('accepts inside an opened Saturday and refuses outside its hours with WORKING_HOURS', () => {
    expect(decide('2026-02-07T10:00+01:00', '2026-02-07T11:00+01:00', r).outcome).toBe('accept');
    expect(failed(decide('2026-02-07T12:00+01:00', '2026-02-07T13:00+01:00', r))).toBe('WORKING_HOURS');
    expect(failed(decide('2026-02-07T09:30+01:00', '2026-02-07T10:30+01:00', r))).toBe('WORKING_HOURS');
  });

  it('refuses a day off with OFF_DAY even in the weekly hours; other hours replace the weekly ones', () => {
    expect(failed(decide('2026-02-09T10:00+01:00', '2026-02-09T11:00+01:00', r))).toBe('OFF_DAY');
    expect(failed(decide('2026-02-10T10:00+01:00', '2026-02-10T11:00+01:00', r))).toBe('WORKING_HOURS');
    expect(decide('2026-02-10T13:00+01:00', '2026-02-10T14:00+01:00', r).outcome).toBe('accept');
    // Without the override the Monday morning is fine.
    expect(decide('2026-02-09T10:00+01:00', '2026-02-09T11:00+01:00').outcome).toBe('accept');
  });

  it('a search offers exactly the override hours (and nothing on the day off)', () => {
    const search = (from: string, to: string) =>
      searchSlots({ rules: r, claims: [], now: NOW, durationMinutes: 60, request: POLICY, maxResults: 100, stepMinutes: 60, window: { start: at(from), end: at(to) } });
    expect(show(search('2026-02-07T00:00+01:00', '2026-02-08T00:00+01:00').slots)).toEqual(['2026-02-07T09:00Z/2026-02-07T10:00Z', '2026-02-07T10:00Z/2026-02-07T11:00Z']);
    expect(search('2026-02-09T00:00+01:00', '2026-02-10T00:00+01:00').slots).toEqual([]);
    expect(show(search('2026-02-10T00:00+01:00', '2026-02-11T00:00+01:00').slots)).toEqual(['2026-02-10T12:00Z/2026-02-10T13:00Z', '2026-02-10T13:00Z/2026-02-10T14:00Z']);
  });

  it('property: every slot a search offers over random overrides is accepted by the arbiter, and a day off offers nothing', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let run = 0; run < 6; run++) {
      const list: DateOverride[] = [];
      for (let d = 22; d <= 31; d++) {
        if (rnd(3)) continue;
        const a = rnd(23);
        const b = a + 1 + rnd(24 - a);
        const hours = rnd(4) ? [{ start: `${String(a).padStart(2, '0')}:00`, end: `${String(b).padStart(2, '0')}:00` }] : [];
        list.push({ date: `2026-03-${String(d).padStart(2, '0')}`, working_hours: hours });
      }
      const rr = withOverrides(list);
      // 22-31 March 2026, across Berlin's spring-forward night (29 March).
      const window = { start: at('2026-03-22T00:00+01:00'), end: at('2026-04-01T00:00+02:00') };
      const { slots } = searchSlots({ rules: rr, claims: [], now: NOW, durationMinutes: 30, request: POLICY, maxResults: 2000, window });
      for (const s of slots) expect(arbitrate({ start: s.start, end: s.end, ...POLICY }, { now: NOW, rules: rr, claims: [] }).outcome).toBe('accept');
      // A day off offers nothing.
      for (const o of list.filter((x) => x.working_hours.length === 0)) {
        const day = o.date;
        expect(slots.some((s) => new Date(s.start).toLocaleDateString('sv-SE', { timeZone: 'Europe/Berlin' }) === day)).toBe(false);
      }
    }
  }, 30_000);
});

describe('validating date overrides', () => {
  it('names bad dates, bad ranges, duplicates, and overrides without working hours', () => {
    const issues = validateOwnerRules(
      withOverrides([
        { date: '2026-02-30', working_hours: [] },
        { date: '2026-03-01', working_hours: [{ start: '12:00', end: '10:00' }] },
        { date: '2026-03-02', working_hours: [{ start: '09:00', end: '12:00' }, { start: '11:00', end: '13:00' }] },
        { date: '2026-03-02', working_hours: [] },
      ]),
    );
    expect(issues).toEqual([
      { path: 'date_overrides[0].date', message: 'date must be a calendar date YYYY-MM-DD' },
      { path: 'date_overrides[1].working_hours[0]', message: 'start must be before end' },
      { path: 'date_overrides[2].working_hours[1]', message: 'overlaps another range of this day' },
      { path: 'date_overrides[3].date', message: '2026-03-02 has another override' },
    ]);
    expect(validateOwnerRules(rules({ workingHours: null, dateOverrides: [{ date: '2026-03-02', working_hours: [] }] }))).toEqual([
      { path: 'date_overrides', message: 'date overrides replace weekly working hours: configure working_hours first' },
    ]);
    expect(validateOwnerRules(withOverrides([{ date: '2026-03-02', working_hours: [{ start: '00:00', end: '24:00' }] }]))).toEqual([]);
  });
});
