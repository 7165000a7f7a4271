import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { asc, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { webhookDeliveries } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { calendarPartOf, startSmtp, type TestSmtp } from '../../helpers/smtp';
import { call, everyDay, onDate, setupOwner } from '../scheduling/fixtures';

/**
 * A recurring series' invitation and events (docs/calendars.md "Series invitations", docs/api.md
 * 8e): ONE mail per attendee for the series, its ICS one VEVENT with the RRULE in the owner's zone
 * and an EXDATE for the occurrence refused at booking; ical.js expands it to exactly the booked
 * occurrences across the spring-forward. Then a cancelled occurrence (CANCEL, RECURRENCE-ID), this
 * and following (REQUEST, UNTIL), a moved occurrence (RECURRENCE-ID at the new time) and the whole
 * series (CANCEL of the UID), one mail each; series.created and series.cancelled beside each
 * occurrence's booking events. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
allowLoopbackOutbound();
const BERLIN = 'Europe/Berlin';
let smtp: TestSmtp;
let admin: TestCustomer;

beforeAll(async () => {
  smtp = await startSmtp();
  vi.stubEnv('SMTP_URL', smtp.url);
  admin = await newCustomer();
});
afterAll(async () => {
  closeMailer();
  await smtp?.close();
});

/** A Tuesday five days before the next EU spring-forward (last Sunday of March) at least two weeks ahead. */
function tuesdayBeforeSpringForward() {
  const today = Temporal.Now.plainDateISO(BERLIN);
  for (let year = today.year; ; year++) {
    const end = Temporal.PlainDate.from({ year, month: 3, day: 31 });
    const lastSunday = end.subtract({ days: end.dayOfWeek % 7 });
    if (Temporal.PlainDate.compare(lastSunday, today.add({ days: 14 })) > 0) return lastSunday.subtract({ days: 5 });
  }
}

type Parsed = { method: string; events: ICAL.Component[]; master: ICAL.Component | undefined };
function parse(raw: string): Parsed {
  const ics = calendarPartOf(raw);
  expect(ics, 'text/calendar part').toBeTruthy();
  const cal = new ICAL.Component(ICAL.parse(ics!));
  const events = cal.getAllSubcomponents('vevent');
  return { method: cal.getFirstPropertyValue('method') as string, events, master: events.find((e) => !e.hasProperty('recurrence-id')) };
}
/** The series' occurrences as ical.js expands the master VEVENT (TZID resolved from the file's own VTIMEZONE). */
function expand(master: ICAL.Component): string[] {
  const ev = new ICAL.Event(master);
  const it = ev.iterator();
  const out: string[] = [];
  for (let next = it.next(); next && out.length < 100; next = it.next()) out.push(ev.getOccurrenceDetails(next).startDate.toJSDate().toISOString());
  return out;
}
const instant = (t: unknown) => (t as ICAL.Time).toJSDate().toISOString();
const sweep = async () => {
  const db = await getDb();
  // Twice: what is sent once is never sent again.
  await sendDueInvitations(db, new Date(), 100, admin.customerId);
  await sendDueInvitations(db, new Date(), 100, admin.customerId);
};
const mailsTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to));
const outbox = async (endpointId: string) =>
  (await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).orderBy(asc(webhookDeliveries.seq))).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

describe('series invitations', () => {
  it('one invitation per attendee for the series (RRULE, EXDATE of the refused occurrence), then one mail per cancel, move and the series cancel', async () => {
    const owner = await setupOwner(admin, { timeZone: BERLIN, workingHours: everyDay('08:00', '20:00') });
    const first = tuesdayBeforeSpringForward();
    const day = (weeks: number) => onDate(first.add({ days: 7 * weeks }).toString(), BERLIN);
    // The third Tuesday's 10:00 is taken: with min_occurrences the series books the other five.
    const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day(2).at('10:00'), end: day(2).at('11:00') } });
    expect(taken.status, taken.text).toBe(201);
    const agent = await newAgent(admin, ['create_bookings']);
    const hook = await call('POST', '/v1/webhooks', { key: agent.key, body: { url: 'http://127.0.0.1:9/series', events: ['series.created', 'series.cancelled', 'booking.created'] } });
    expect(hook.status, hook.text).toBe(201);
    const stamp = Date.now();
    const guests = [`s1.${stamp}@partner.example`, `s2.${stamp}@partner.example`];
    const r = await call('POST', '/v1/bookings', {
      key: agent.key,
      body: { owner_email: owner, meeting_class: 'internal', start: day(0).at('10:00'), end: day(0).at('11:00'), recurrence: 'FREQ=WEEKLY;COUNT=6', min_occurrences: 4, title: 'Weekly sync', attendees: guests.map((email) => ({ email })) },
    });
    expect(r.status, r.text).toBe(201);
    const seriesId = r.body.series.series_id as string;
    const booked = r.body.series.bookings as { index: number; booking_id: string; start: string }[];
    expect(booked.map((b) => b.index)).toEqual([0, 1, 3, 4, 5]);
    const ids = booked.map((b) => b.booking_id);

    // series.created once, beside each occurrence's booking.created.
    const events = await outbox(hook.body.id);
    const created = events.filter((e) => e.type === 'series.created');
    expect(created).toHaveLength(1);
    expect(created[0].data).toMatchObject({ series_id: seriesId, owner_email: owner, recurrence: 'FREQ=WEEKLY;COUNT=6', occurrences_requested: 6, min_occurrences: 4, booking_ids: ids, refused_occurrences: [{ index: 2, start: day(2).at('10:00') }] });
    expect(events.filter((e) => e.type === 'booking.created' && e.data.series_id === seriesId)).toHaveLength(5);

    await sweep();
    const uid = `${seriesId}@agent-scheduler`;
    for (const g of guests) {
      const mails = mailsTo(g);
      expect(mails.map((m) => m.subject)).toEqual(['Invitation: Weekly sync']);
      const inv = parse(mails[0].raw);
      expect(inv.method).toBe('REQUEST');
      expect(inv.events).toHaveLength(1);
      const m = inv.master!;
      expect(m.getFirstPropertyValue('uid')).toBe(uid);
      expect(m.getFirstPropertyValue('sequence')).toBe(0);
      expect(m.getFirstProperty('dtstart')!.getParameter('tzid')).toBe(BERLIN);
      expect(String(m.getFirstPropertyValue('rrule'))).toBe('FREQ=WEEKLY;COUNT=6');
      expect(m.getAllProperties('exdate').map((p) => instant(p.getFirstValue()))).toEqual([day(2).at('10:00')]);
      expect(m.getAllProperties('attendee').map((p) => p.getFirstValue())).toEqual(guests.map((e) => `mailto:${e}`));
      // ical.js expands it to the five booked occurrences, 10:00 in Berlin on both sides of the change.
      expect(expand(m)).toEqual(booked.map((b) => b.start));
      expect(new Set(booked.map((b) => b.start.slice(11, 13)))).toEqual(new Set(['09', '08']));
      expect(mails[0].text).toContain('Repeats: 5 occurrences');
    }
    // No occurrence got an invitation of its own.
    expect(smtp.messages.filter((m) => m.subject.startsWith('Invitation: Weekly sync')).length).toBe(2);

    // One occurrence cancelled (by another agent): METHOD:CANCEL with its RECURRENCE-ID, SEQUENCE 1.
    const cancel = (id: string, body: Record<string, unknown>) => call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body });
    expect((await cancel(ids[1], { reason: 'public holiday' })).status).toBe(200);
    await sweep();
    for (const g of guests) {
      const mails = mailsTo(g);
      expect(mails.map((m) => m.subject)).toEqual(['Invitation: Weekly sync', 'Cancelled: Weekly sync']);
      const c = parse(mails[1].raw);
      expect(c.method).toBe('CANCEL');
      expect(c.events).toHaveLength(1);
      expect(c.events[0].getFirstPropertyValue('uid')).toBe(uid);
      expect(c.events[0].getFirstPropertyValue('sequence')).toBe(1);
      expect(instant(c.events[0].getFirstPropertyValue('recurrence-id'))).toBe(booked[1].start);
      expect(c.events[0].hasProperty('rrule')).toBe(false);
      expect(mails[1].text).toContain('Reason: public holiday');
    }

    // One occurrence moved: its VEVENT with RECURRENCE-ID at the new time, SEQUENCE 2.
    const moved = await call('POST', `/v1/bookings/${ids[2]}/reschedule`, { key: agent.key, body: { start: day(3).at('15:00'), end: day(3).at('16:00') } });
    expect(moved.status, moved.text).toBe(200);
    await sweep();
    const update = parse(mailsTo(guests[0])[2].raw);
    expect(mailsTo(guests[0]).map((m) => m.subject)[2]).toBe('Updated: Weekly sync');
    expect(update.method).toBe('REQUEST');
    expect(update.master).toBeUndefined();
    expect(update.events.map((e) => [e.getFirstPropertyValue('sequence'), instant(e.getFirstPropertyValue('recurrence-id')), instant(e.getFirstPropertyValue('dtstart'))])).toEqual([[2, booked[2].start, day(3).at('15:00')]]);

    // This and following (from the fifth Tuesday): a REQUEST whose rule ends at the fourth, keeping the EXDATEs and the moved one.
    expect((await cancel(ids[3], { scope: 'following' })).status).toBe(200);
    await sweep();
    expect(mailsTo(guests[0]).map((m) => m.subject)[3]).toBe('Updated: Weekly sync');
    const cut = parse(mailsTo(guests[0])[3].raw);
    expect(cut.method).toBe('REQUEST');
    expect(cut.master!.getFirstPropertyValue('sequence')).toBe(3);
    expect(String(cut.master!.getFirstPropertyValue('rrule'))).toMatch(/^FREQ=WEEKLY;UNTIL=\d{8}T\d{6}Z$/);
    // Left: the first, and the fourth instance (ical.js relates the moved VEVENT to it: its new time); the second and third are EXDATEs.
    expect(expand(cut.master!)).toEqual([booked[0].start, day(3).at('15:00')]);
    expect(cut.events.filter((e) => e.hasProperty('recurrence-id')).map((e) => instant(e.getFirstPropertyValue('dtstart')))).toEqual([day(3).at('15:00')]);

    // The whole series: METHOD:CANCEL for its UID, no RECURRENCE-ID.
    expect((await cancel(ids[0], { scope: 'series', reason: 'project ended' })).status).toBe(200);
    await sweep();
    for (const g of guests) {
      const mails = mailsTo(g);
      expect(mails.map((m) => m.subject)).toEqual(['Invitation: Weekly sync', 'Cancelled: Weekly sync', 'Updated: Weekly sync', 'Updated: Weekly sync', 'Cancelled: Weekly sync']);
      const all = parse(mails[4].raw);
      expect(all.method).toBe('CANCEL');
      expect(all.master!.getFirstPropertyValue('uid')).toBe(uid);
      expect(all.master!.getFirstPropertyValue('sequence')).toBe(4);
      expect(mails[4].text).toContain('The whole series was cancelled: Weekly sync.');
    }

    // series.cancelled once per cancel, with its scope and the occurrences it cancelled.
    const cancelled = (await outbox(hook.body.id)).filter((e) => e.type === 'series.cancelled').map((e) => e.data);
    expect(cancelled.map((d) => [d.scope, d.booking_ids, d.reason])).toEqual([
      ['occurrence', [ids[1]], 'public holiday'],
      ['following', [ids[3], ids[4]], null],
      ['series', [ids[0], ids[2]], 'project ended'],
    ]);
    expect(cancelled.every((d) => d.series_id === seriesId && d.owner_email === owner)).toBe(true);
  });

  it('a series without attendees mails no one', async () => {
    const owner = await setupOwner(admin, { timeZone: BERLIN, workingHours: everyDay('08:00', '20:00') });
    const first = tuesdayBeforeSpringForward().add({ days: 1 });
    const d = onDate(first.toString(), BERLIN);
    const before = smtp.messages.length;
    const r = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: d.at('12:00'), end: d.at('12:30'), recurrence: 'FREQ=DAILY;COUNT=3' } });
    expect(r.status, r.text).toBe(201);
    await sweep();
    expect(smtp.messages.slice(before).map((m) => `${m.to.join()} ${m.subject}`)).toEqual([]);
  });
});
