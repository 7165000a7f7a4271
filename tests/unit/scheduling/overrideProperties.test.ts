/**
 * Property-based tests of date overrides and out of office (docs/arbitration.md "Date overrides",
 * "Out of office") in every kind of zone, on the days clocks change: an override is local wall
 * time in the owner's zone (the first instant the clock shows it: a time in a fold is its first
 * occurrence, a time in a gap is the end of the gap), it replaces only its own date, and a
 * search offers exactly the override's hours on that date and, with meetings and buffers
 * around, only what a booking is accepted for.
 */
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { arbitrate, outOfOfficeAt, searchSlots, workingIntervals, type Claim, type DateOverride, type Interval, type OwnerRules, type RequestPolicy } from '@/server/domain/scheduling';
import { H, MIN, POLICY, rules, show } from './helpers';

vi.setConfig({ testTimeout: 60_000 });
const RUNS = { numRuns: 120 };

/** Zones with 1-hour DST both hemispheres, a 30-minute DST, a DST at midnight, odd offsets, none. */
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/Santiago', 'America/Havana', 'Asia/Kathmandu', 'Asia/Kolkata', 'UTC'];

/** The local dates of a zone's offset changes in 2026-2027 (none for a zone without DST). */
function transitionDates(tz: string): string[] {
  const out: string[] = [];
  let z: Temporal.ZonedDateTime | null = Temporal.ZonedDateTime.from({ timeZone: tz, year: 2026, month: 1, day: 1 });
  for (let i = 0; i < 4 && z; i++) {
    z = z.getTimeZoneTransition('next');
    if (z) out.push(z.toPlainDate().toString());
  }
  return out;
}

/** A date: a day of a clock change in the zone (or its neighbours), or any day of 2026. */
const dateArb = (tz: string): fc.Arbitrary<string> => {
  const changes = transitionDates(tz);
  const any = fc.integer({ min: 0, max: 364 }).map((d) => Temporal.PlainDate.from('2026-01-01').add({ days: d }).toString());
  if (changes.length === 0) return any;
  const near = fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -1, max: 1 })).map(([d, k]) => Temporal.PlainDate.from(d).add({ days: k }).toString());
  return fc.oneof(near, near, any);
};

const hhmm = (q: number) => `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;
/** 0-2 sorted, non-overlapping ranges on the quarter hour; an end may be 24:00. [] is a day off. */
const hoursArb: fc.Arbitrary<{ start: string; end: string }[]> = fc
  .uniqueArray(fc.integer({ min: 0, max: 96 }), { minLength: 0, maxLength: 4 })
  .map((qs) => {
    const s = [...qs].sort((a, b) => a - b);
    const out: { start: string; end: string }[] = [];
    for (let i = 0; i + 1 < s.length; i += 2) out.push({ start: hhmm(s[i]), end: hhmm(s[i + 1]) });
    return out;
  });

const caseArb = fc
  .constantFrom(...ZONES)
  .chain((tz) => fc.record({ tz: fc.constant(tz), date: dateArb(tz), hours: hoursArb, weekly: fc.boolean() }));

/**
 * The instant of a local wall time on a date by the "first crossing" rule (docs/arbitration.md, the
 * DST rules): the first instant at which the owner's clock shows that time or later. Found by
 * walking the day on the quarter hour (every offset change of these zones falls on one) and
 * reading the clock, so the reference does not share the core's conversion.
 */
function wall(tz: string, date: string, time: string): number {
  const d = Temporal.PlainDate.from(date);
  const end = d.add({ days: 1 }).toZonedDateTime({ timeZone: tz }).epochMilliseconds;
  if (time === '24:00') return end;
  const [h, m] = time.split(':').map(Number);
  const want = h * 60 + m;
  for (let t = d.toZonedDateTime({ timeZone: tz }).epochMilliseconds; t < end; t += 15 * MIN) {
    const z = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(tz);
    if (Temporal.PlainDate.compare(z.toPlainDate(), d) > 0 || z.hour * 60 + z.minute >= want) return t;
  }
  return end;
}
const dayStart = (tz: string, date: string) => Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: tz }).epochMilliseconds;
const nextDay = (date: string) => Temporal.PlainDate.from(date).add({ days: 1 }).toString();

/** The naive reference: the override's ranges as local wall time, the empty ones (a gap swallowed a range) left out. */
function reference(tz: string, date: string, hours: { start: string; end: string }[]): Interval[] {
  const out: Interval[] = [];
  for (const h of hours) {
    const start = wall(tz, date, h.start);
    const end = wall(tz, date, h.end);
    if (end > start) out.push({ start, end });
  }
  // Touching ranges are one stretch.
  return out.reduce<Interval[]>((acc, i) => {
    const last = acc.at(-1);
    if (last && last.end >= i.start) last.end = Math.max(last.end, i.end);
    else acc.push({ ...i });
    return acc;
  }, []);
}

const clip = (list: Interval[], from: number, to: number) =>
  list.map((i) => ({ start: Math.max(i.start, from), end: Math.min(i.end, to) })).filter((i) => i.end > i.start);

/** The owner's rules: weekdays 09-17 (or every day 00-24), with the one override. */
function ownerRules(tz: string, weekly: boolean, overrides: DateOverride[] = []): OwnerRules {
  const all = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
  const workingHours = Object.fromEntries(all.map((d) => [d, weekly ? (['sat', 'sun'].includes(d) ? [] : [{ start: '09:00', end: '17:00' }]) : [{ start: '00:00', end: '24:00' }]]));
  return rules({ timeZone: tz, workingHours: workingHours as OwnerRules['workingHours'], dateOverrides: overrides });
}

describe('date override properties (zones x DST)', () => {
  it('on its date the working time is exactly the override\'s local wall time', () => {
    fc.assert(
      fc.property(caseArb, ({ tz, date, hours, weekly }) => {
        const from = dayStart(tz, date);
        const to = dayStart(tz, nextDay(date));
        const got = clip(workingIntervals(ownerRules(tz, weekly, [{ date, working_hours: hours }]), from - 30 * H, to + 30 * H), from, to);
        expect(show(got)).toEqual(show(reference(tz, date, hours)));
      }),
      RUNS,
    );
  });

  it('an override replaces only its date: every other instant is working exactly as without it', () => {
    fc.assert(
      fc.property(caseArb, ({ tz, date, hours, weekly }) => {
        const from = dayStart(tz, date);
        const to = dayStart(tz, nextDay(date));
        const span = { start: from - 3 * 24 * H, end: to + 3 * 24 * H };
        const withIt = workingIntervals(ownerRules(tz, weekly, [{ date, working_hours: hours }]), span.start, span.end);
        const without = workingIntervals(ownerRules(tz, weekly), span.start, span.end);
        for (const [a, b] of [[span.start, from], [to, span.end]]) expect(show(clip(withIt, a, b))).toEqual(show(clip(without, a, b)));
      }),
      RUNS,
    );
  });

  it('a search offers on that date exactly the grid slots inside the override, each accepted by the arbiter; none on a day off', () => {
    fc.assert(
      fc.property(caseArb, fc.constantFrom(15, 30, 60), ({ tz, date, hours, weekly }, minutes) => {
        const r = ownerRules(tz, weekly, [{ date, working_hours: hours }]);
        const from = dayStart(tz, date);
        const to = dayStart(tz, nextDay(date));
        const now = from - 10 * 24 * H;
        const res = searchSlots({ rules: r, claims: [], now, durationMinutes: minutes, request: POLICY, stepMinutes: 15, maxResults: 500, window: { start: from, end: to } });
        const expected: string[] = [];
        for (const i of reference(tz, date, hours)) for (let t = i.start; t + minutes * MIN <= Math.min(i.end, to); t += 15 * MIN) expected.push(show([{ start: t, end: t + minutes * MIN }])[0]);
        expect(show(res.slots)).toEqual(expected);
        for (const s of res.slots) expect(arbitrate({ start: s.start, end: s.end, ...POLICY }, { now, rules: r, claims: [] }).outcome).toBe('accept');
        if (hours.length === 0) expect(res.noSlots?.reason_code).toBe('OFF_DAY');
      }),
      RUNS,
    );
  });
  it('with meetings and buffers too, every slot a search offers around the date is accepted by a booking and lies in working time', () => {
    const bufferArb = fc.constantFrom(0, 5, 10, 15, 30).map((m) => m * MIN);
    const meetingsArb = fc.array(fc.record({ at: fc.integer({ min: 0, max: 4 * 72 }), len: fc.integer({ min: 1, max: 8 }), before: bufferArb, after: bufferArb, priority: fc.integer({ min: 0, max: 9 }) }), { maxLength: 12 });
    fc.assert(
      fc.property(caseArb, meetingsArb, bufferArb, bufferArb, fc.constantFrom(15, 30, 60), ({ tz, date, hours, weekly }, meetings, before, after, minutes) => {
        const r = ownerRules(tz, weekly, [{ date, working_hours: hours }]);
        const from = dayStart(tz, date) - 24 * H;
        const to = dayStart(tz, nextDay(nextDay(date)));
        // Meetings as the database keeps them: none overlapping another.
        const claims: Claim[] = [];
        for (const [i, m] of meetings.entries()) {
          const start = from + m.at * 15 * MIN;
          const end = start + m.len * 15 * MIN;
          if (claims.some((c) => c.start < end && start < c.end)) continue;
          claims.push({ id: `m${i}`, kind: 'booking', start, end, countedMinutes: m.len * 15, priority: m.priority, sacred: false, bufferBeforeMs: m.before, bufferAfterMs: m.after });
        }
        const request: RequestPolicy = { ...POLICY, bufferBeforeMs: before, bufferAfterMs: after };
        const now = from - 10 * 24 * H;
        const { slots } = searchSlots({ rules: r, claims, now, durationMinutes: minutes, request, stepMinutes: 15, maxResults: 1000, window: { start: from, end: to } });
        const working = workingIntervals(r, from - 24 * H, to + 24 * H);
        for (const s of slots) {
          expect(arbitrate({ start: s.start, end: s.end, ...request }, { now, rules: r, claims }).outcome).toBe('accept');
          expect(working.some((w) => w.start <= s.start && s.end <= w.end)).toBe(true);
        }
      }),
      RUNS,
    );
  });
});

describe('out of office properties (zones x DST)', () => {
  it('nothing is offered on the range\'s local days; it ends at the local midnight after its last day', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: 3 }), ({ tz, date, weekly }, days) => {
        const end = Temporal.PlainDate.from(date).add({ days }).toString();
        const r = { ...ownerRules(tz, weekly), outOfOffice: [{ start: date, end }] };
        const away = { start: dayStart(tz, date), end: dayStart(tz, nextDay(end)) };
        const window = { start: away.start - 2 * 24 * H, end: away.end + 2 * 24 * H };
        const { slots } = searchSlots({ rules: r, claims: [], now: window.start - 24 * H, durationMinutes: 30, request: POLICY, stepMinutes: 15, maxResults: 2000, window });
        expect(slots.filter((s) => s.start < away.end && away.start < s.end)).toEqual([]);
        // Outside the range the owner's week is untouched.
        const plain = searchSlots({ rules: ownerRules(tz, weekly), claims: [], now: window.start - 24 * H, durationMinutes: 30, request: POLICY, stepMinutes: 15, maxResults: 2000, window });
        expect(show(slots)).toEqual(show(plain.slots.filter((s) => !(s.start < away.end && away.start < s.end))));
        const hit = outOfOfficeAt(r, away.start + H, away.start + 2 * H);
        expect(hit?.after).toBe(away.end);
      }),
      RUNS,
    );
  });
});
