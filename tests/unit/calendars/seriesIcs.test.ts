/**
 * A recurring series' ICS (docs/calendars.md "Series invitations"; server/domain/calendars/
 * invitationIcs.ts with `series`, zoneIcs.ts): ical.js parses what we write, resolves its TZID
 * from the VTIMEZONE in the file (not from a zone database of its own), and expands the RRULE
 * less its EXDATEs to exactly the occurrences the series booked, across daylight-saving changes
 * in every zone of the DST matrix. And what a series' invitation says next (seriesInvitationPlan.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { Temporal } from 'temporal-polyfill';
import { expandSeries } from '@/server/domain/scheduling/series';
import { invitationIcs, type InvitationInput } from '@/server/domain/calendars/invitationIcs';
import { planSeriesUpdate } from '@/server/domain/calendars/seriesInvitationPlan';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/Santiago', 'America/Havana', 'Asia/Kathmandu', 'UTC'];
const HOUR = 3_600_000;
const at = (zone: string, local: string) => Temporal.PlainDateTime.from(local).toZonedDateTime(zone).epochMilliseconds;
const iso = (ms: number) => new Date(ms).toISOString();

/** A series' invitation as the sweep writes it: DTSTART the rule's first instance, EXDATE the instances not booked. */
function seriesInvite(zone: string, rrule: string, start: number, durationMs: number, exdates: number[], extra: Partial<InvitationInput> = {}): { ics: string; instances: number[] } {
  const instances = expandSeries({ rrule, start, end: start + durationMs, timeZone: zone }).map((o) => o.start);
  const span = { from: start, to: instances[instances.length - 1] + durationMs };
  const ics = invitationIcs({
    method: 'REQUEST',
    uid: 'series-1@test',
    sequence: 0,
    organizer: { email: 'owner@example.com' },
    attendees: [{ email: 'guest@example.com' }],
    start: new Date(start),
    end: new Date(start + durationMs),
    title: 'Weekly sync',
    now: new Date(start - 86_400_000),
    series: { timeZone: zone, span, rrule, exdates: exdates.map((x) => new Date(x)) },
    ...extra,
  });
  return { ics, instances };
}

/** The instants ical.js expands the file's series VEVENT to (its EXDATEs left out), each with its end. */
function expand(ics: string): { start: number; end: number }[] {
  const cal = new ICAL.Component(ICAL.parse(ics));
  const master = cal.getAllSubcomponents('vevent').find((v) => !v.hasProperty('recurrence-id'))!;
  const ev = new ICAL.Event(master);
  const it = ev.iterator();
  const out: { start: number; end: number }[] = [];
  for (let next = it.next(); next && out.length < 400; next = it.next()) {
    const d = ev.getOccurrenceDetails(next);
    out.push({ start: d.startDate.toJSDate().getTime(), end: d.endDate.toJSDate().getTime() });
  }
  return out;
}

describe('series ICS: RRULE, EXDATE, VTIMEZONE', () => {
  it('a weekly series across the Berlin spring-forward: 10:00 local each week, UTC 09:00 then 08:00, the refused one an EXDATE', () => {
    const zone = 'Europe/Berlin';
    const start = at(zone, '2027-03-16T10:00'); // two Tuesdays before the change (28 March 2027)
    const { ics, instances } = seriesInvite(zone, 'FREQ=WEEKLY;COUNT=5', start, HOUR, []);
    const refused = instances[2];
    const withEx = seriesInvite(zone, 'FREQ=WEEKLY;COUNT=5', start, HOUR, [refused]).ics;
    expect(ics).toMatch(/DTSTART;TZID=Europe\/Berlin:20270316T100000/);
    expect(ics).toMatch(/RRULE:FREQ=WEEKLY;COUNT=5/);
    expect(ics).toMatch(/BEGIN:VTIMEZONE[\s\S]*TZID:Europe\/Berlin[\s\S]*BEGIN:DAYLIGHT[\s\S]*DTSTART:20270328T020000/);
    expect(expand(ics).map((o) => iso(o.start))).toEqual(['2027-03-16T09:00:00.000Z', '2027-03-23T09:00:00.000Z', '2027-03-30T08:00:00.000Z', '2027-04-06T08:00:00.000Z', '2027-04-13T08:00:00.000Z']);
    expect(withEx).toMatch(/EXDATE;TZID=Europe\/Berlin:20270330T100000/);
    expect(expand(withEx).map((o) => o.start)).toEqual(instances.filter((t) => t !== refused));
    expect(expand(withEx).every((o) => o.end - o.start === HOUR)).toBe(true);
  });

  it('Tuesdays and Thursdays in New York across the fall-back, the first instance itself refused (EXDATE of DTSTART)', () => {
    const zone = 'America/New_York';
    const start = at(zone, '2027-10-26T15:30'); // a Tuesday; clocks fall back on 7 November 2027
    const rrule = 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=8';
    const { instances } = seriesInvite(zone, rrule, start, 45 * 60_000, []);
    const { ics } = seriesInvite(zone, rrule, start, 45 * 60_000, [instances[0], instances[5]]);
    const got = expand(ics).map((o) => o.start);
    expect(got).toEqual(instances.filter((_, i) => i !== 0 && i !== 5));
    expect(got.map((t) => Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone).toPlainTime().toString({ smallestUnit: 'minute' }))).toEqual(Array(6).fill('15:30'));
    expect(new Set(got.map((t) => new Date(t).getUTCHours()))).toEqual(new Set([19, 20])); // EDT, then EST
  });

  it('a rule cut with UNTIL (this and following cancelled) ends at the last kept occurrence', () => {
    const zone = 'Europe/Berlin';
    const start = at(zone, '2027-10-19T09:00');
    const { instances } = seriesInvite(zone, 'FREQ=WEEKLY;COUNT=6', start, HOUR, []);
    const until = new Date(instances[2]).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    const { ics } = seriesInvite(zone, `FREQ=WEEKLY;UNTIL=${until}`, start, HOUR, []);
    expect(ics).toMatch(/RRULE:FREQ=WEEKLY;UNTIL=\d{8}T\d{6}Z/);
    expect(expand(ics).map((o) => o.start)).toEqual(instances.slice(0, 3));
  });

  it('one occurrence cancelled: METHOD:CANCEL, the series UID, RECURRENCE-ID of that instance in the zone, no RRULE', () => {
    const zone = 'America/New_York';
    const start = at(zone, '2027-03-09T10:00');
    const { instances } = seriesInvite(zone, 'FREQ=WEEKLY;COUNT=4', start, HOUR, []);
    const span = { from: start, to: instances[3] + HOUR };
    const ics = invitationIcs({ method: 'CANCEL', uid: 'series-1@test', sequence: 1, organizer: { email: 'owner@example.com' }, attendees: [{ email: 'guest@example.com' }], start: new Date(instances[1]), end: new Date(instances[1] + HOUR), title: 'Weekly sync', now: new Date(start), series: { timeZone: zone, span, recurrenceId: new Date(instances[1]) } });
    const cal = new ICAL.Component(ICAL.parse(ics));
    const ev = cal.getFirstSubcomponent('vevent')!;
    expect(cal.getFirstPropertyValue('method')).toBe('CANCEL');
    expect(ev.getFirstPropertyValue('uid')).toBe('series-1@test');
    expect(ev.getFirstPropertyValue('status')).toBe('CANCELLED');
    expect(ev.hasProperty('rrule')).toBe(false);
    expect(ev.getFirstProperty('recurrence-id')!.getParameter('tzid')).toBe(zone);
    // 16 March 2027 10:00 EDT (the change was on the 14th): 14:00 UTC.
    expect((ev.getFirstPropertyValue('recurrence-id') as ICAL.Time).toJSDate().toISOString()).toBe('2027-03-16T14:00:00.000Z');
    expect(new ICAL.Event(ev).recurrenceId.toJSDate().getTime()).toBe(instances[1]);
  });

  it('property: in every zone of the DST matrix, ical.js expands the file to the booked occurrences (daily, weekly, monthly; EXDATEs drawn)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 364 }),
        fc.integer({ min: 7, max: 20 }),
        fc.constantFrom('FREQ=DAILY;INTERVAL=3;COUNT=30', 'FREQ=WEEKLY;COUNT=40', 'FREQ=WEEKLY;INTERVAL=2;COUNT=26', 'FREQ=MONTHLY;COUNT=12'),
        fc.array(fc.integer({ min: 0, max: 39 }), { maxLength: 5 }),
        (zone, dayOffset, hour, rrule, dropped) => {
          const date = Temporal.PlainDate.from('2027-01-04').add({ days: dayOffset });
          // A monthly rule on the 29th to 31st skips months and runs past the series' year: not a series we book.
          fc.pre(!rrule.includes('MONTHLY') || date.day <= 28);
          const start = at(zone, `${date.toString()}T${String(hour).padStart(2, '0')}:15`);
          const { instances } = seriesInvite(zone, rrule, start, 30 * 60_000, []);
          const ex = [...new Set(dropped.filter((i) => i < instances.length && i > 0))].map((i) => instances[i]);
          const { ics } = seriesInvite(zone, rrule, start, 30 * 60_000, ex);
          expect(expand(ics).map((o) => o.start)).toEqual(instances.filter((t) => !ex.includes(t)));
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000); // 120 files written and expanded: seconds on a shared 2-core machine
});

describe('what a series invitation says next', () => {
  const rids = ['2027-03-16T09:00:00.000Z', '2027-03-23T09:00:00.000Z', '2027-03-30T08:00:00.000Z', '2027-04-06T08:00:00.000Z'];
  const end = (s: string) => new Date(new Date(s).getTime() + HOUR).toISOString();
  const sent = { attendees: ['guest@example.com'], occurrences: Object.fromEntries(rids.map((r, i) => [`b${i}`, { rid: r, start: r, end: end(r) }])), exdates: [], until: null };
  const now = (status: (i: number) => string, moved: Record<number, string> = {}) =>
    rids.map((r, i) => ({ id: `b${i}`, start: new Date(moved[i] ?? r), end: new Date(end(moved[i] ?? r)), status: status(i) }));

  it('nothing changed: nothing to send', () => {
    expect(planSeriesUpdate(sent, now(() => 'confirmed'), HOUR)).toBeNull();
  });

  it('one occurrence cancelled: CANCEL of that instance, which the next updates keep as an EXDATE', () => {
    const plan = planSeriesUpdate(sent, now((i) => (i === 1 ? 'cancelled' : 'confirmed')), HOUR)!;
    expect(plan).toMatchObject({ cancelSeries: false, updateSeries: false, cancelOccurrence: { rid: rids[1] }, overrides: [] });
    expect(plan.next.exdates).toEqual([rids[1]]);
    // Told once: the same state again says nothing.
    expect(planSeriesUpdate(plan.next, now((i) => (i === 1 ? 'cancelled' : 'confirmed')), HOUR)).toBeNull();
  });

  it('this and following cancelled: a REQUEST update whose rule ends (UNTIL) at the last kept occurrence', () => {
    const plan = planSeriesUpdate(sent, now((i) => (i >= 2 ? 'cancelled' : 'confirmed')), HOUR)!;
    expect(plan).toMatchObject({ cancelSeries: false, updateSeries: true, cancelOccurrence: null });
    expect(plan.next).toMatchObject({ until: rids[1], exdates: [] });
    expect(planSeriesUpdate(plan.next, now((i) => (i >= 2 ? 'cancelled' : 'confirmed')), HOUR)).toBeNull();
    // Then the rest: the whole series.
    expect(planSeriesUpdate(plan.next, now(() => 'cancelled'), HOUR)).toMatchObject({ cancelSeries: true });
  });

  it('two apart cancelled at once: a REQUEST update with both as EXDATEs, the rule unchanged', () => {
    const plan = planSeriesUpdate(sent, now((i) => (i === 0 || i === 2 ? 'cancelled' : 'confirmed')), HOUR)!;
    expect(plan).toMatchObject({ updateSeries: true, next: { until: null, exdates: [rids[0], rids[2]] } });
  });

  it('every occurrence gone: CANCEL of the whole series', () => {
    expect(planSeriesUpdate(sent, now(() => 'cancelled'), HOUR)).toMatchObject({ cancelSeries: true });
  });

  it('an occurrence moved: its VEVENT with RECURRENCE-ID at the new time, kept in the next series update', () => {
    const moved = '2027-03-24T13:00:00.000Z';
    const plan = planSeriesUpdate(sent, now(() => 'confirmed', { 1: moved }), HOUR)!;
    expect(plan).toMatchObject({ updateSeries: false, overrides: [{ rid: rids[1], start: moved }] });
    const later = planSeriesUpdate(plan.next, now((i) => (i >= 2 ? 'cancelled' : 'confirmed'), { 1: moved }), HOUR)!;
    expect(later).toMatchObject({ updateSeries: true, overrides: [{ rid: rids[1], start: moved }], next: { until: rids[1] } });
  });
});
