import ICAL from 'ical.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { calendarEvents } from '@/db/schema';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startRadicale, type TestRadicale } from '../../helpers/radicale';
import { call, everyDay, nextWeekday, onDate, setupOwner } from '../scheduling/fixtures';
import { BERLIN_VTIMEZONE } from '../../unit/calendars/fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * docs/calendars.md acceptance against a real Radicale on loopback: provider
 * events are sacred and busy, bookings are written back as UTC VEVENTs and
 * removed on cancel, a changed password fails closed until reconnect, and a
 * recurring series with an EXDATE and a moved instance blocks exactly its
 * times across a DST change.
 */
const TZ = 'Europe/Berlin';
let radicale: TestRadicale;
let admin: TestCustomer;
let owner: string;
let calendarId: string;

// The fakes listen on loopback: the outbound guard lets them through for this file only.
allowLoopbackOutbound();
beforeAll(async () => {
  radicale = await startRadicale();
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ, workingHours: everyDay('08:00', '20:00') });
});
afterAll(async () => {
  await radicale?.stop();
});
beforeEach(() => {
  vi.stubEnv('CALENDAR_SECRET_KEYS', `k1:${Buffer.alloc(32, 7).toString('base64')}`);
  // Every request syncs first (the "sync before arbitration" path), so tests need no waiting.
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '0');
});

async function connect(password = radicale.password) {
  return call('POST', '/v1/calendars/caldav', {
    key: admin.key,
    body: { owner_email: owner, server_url: radicale.url, username: radicale.user, password, calendar_url: radicale.calendarUrl, make_primary: true },
  });
}

const vevent = (uid: string, start: string, end: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${ical(start)}\r\nDTEND:${ical(end)}\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
const ical = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');

describe('CalDAV against Radicale', () => {
  it('connects, lists the calendar with its status and last sync', async () => {
    const res = await connect();
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ type: 'caldav', display_name: 'Work', is_primary: true, status: 'active', check_conflicts: true, last_sync_error: null });
    expect(res.body.last_synced_at).not.toBeNull();
    calendarId = res.body.calendar_id;
    const list = await call('GET', `/v1/calendars?owner_email=${encodeURIComponent(owner)}`, { key: admin.key });
    expect(list.status, list.text).toBe(200);
    expect(list.body.calendars.map((c: { type: string; is_primary: boolean }) => [c.type, c.is_primary])).toEqual([
      ['caldav', true],
      ['internal', false],
    ]);
  });

  it('an event created on the server makes an overlapping booking fail with SACRED_MEETING and is busy in search', async () => {
    const day = nextWeekday('tue', TZ);
    await radicale.putEvent('dentist.ics', vevent('dentist-1', day.at('10:00'), day.at('11:00')));
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('10:30'), end: day.at('11:30') } });
    expect(booking.status, booking.text).toBe(409);
    expect(booking.body.error).toMatchObject({ code: 'ARBITRATION_REJECTED', reason: 'SACRED_MEETING' });
    const search = await call('POST', '/v1/availability/search', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'external', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('12:00') } },
    });
    expect(search.status, search.text).toBe(200);
    const starts = search.body.slots.map((s: { start: string }) => s.start);
    expect(starts).toContain(day.at('09:30'));
    expect(starts).toContain(day.at('11:00'));
    for (const t of ['10:00', '10:30', '09:45']) expect(starts).not.toContain(day.at(t));
  });

  it('writes a booking as a UTC VEVENT, does not import it back, and deletes it on cancel', async () => {
    const day = nextWeekday('wed', TZ);
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('14:00'), end: day.at('15:00'), title: 'Review' } });
    expect(booking.status, booking.text).toBe(201);
    expect(booking.body.calendar_type).toBe('caldav');
    const db = await getDb();
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    const mine = [...(await radicale.objects()).values()].find((ics) => ics.includes(uid));
    expect(mine, 'booking event on the server').toBeDefined();
    const ev = new ICAL.Event(new ICAL.Component(ICAL.parse(mine!)).getFirstSubcomponent('vevent')!);
    expect(ev.startDate.zone?.tzid).toBe('UTC');
    expect(ev.startDate.toJSDate().toISOString()).toBe(day.at('14:00'));
    expect(ev.endDate.toJSDate().toISOString()).toBe(day.at('15:00'));
    expect(ev.summary).toBe('Review');
    // The next sync reads it back and recognises it by UID: no mirror row.
    await radicale.putEvent('nudge.ics', vevent('nudge-1', day.at('18:00'), day.at('18:30')));
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    const rows = await db.select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId));
    expect(rows.map((r) => r.uid)).toContain('nudge-1');
    expect(rows.map((r) => r.uid)).not.toContain(uid);

    const cancel = await call('POST', `/v1/bookings/${booking.body.booking_id}/cancel`, { key: admin.key, body: {} });
    expect(cancel.status, cancel.text).toBe(200);
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    expect([...(await radicale.objects()).values()].some((ics) => ics.includes(uid))).toBe(false);
  });

  it('a reschedule rewrites the same VEVENT (same UID and resource, next SEQUENCE), never a second one', async () => {
    const day = nextWeekday('thu', TZ);
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30'), title: 'Moved review' } });
    expect(booking.status, booking.text).toBe(201);
    const db = await getDb();
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    const before = [...(await radicale.objects()).entries()].filter(([, ics]) => ics.includes(uid));
    expect(before).toHaveLength(1);
    const seq0 = new ICAL.Component(ICAL.parse(before[0][1])).getFirstSubcomponent('vevent')!.getFirstPropertyValue('sequence') ?? 0;

    const moved = await call('POST', `/v1/bookings/${booking.body.booking_id}/reschedule`, { key: admin.key, body: { start: day.at('11:00'), end: day.at('11:30') } });
    expect(moved.status, moved.text).toBe(200);
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    const after = [...(await radicale.objects()).entries()].filter(([, ics]) => ics.includes(uid));
    expect(after.map(([name]) => name)).toEqual([before[0][0]]);
    const ev = new ICAL.Event(new ICAL.Component(ICAL.parse(after[0][1])).getFirstSubcomponent('vevent')!);
    expect(ev.startDate.toJSDate().toISOString()).toBe(day.at('11:00'));
    expect(ev.endDate.toJSDate().toISOString()).toBe(day.at('11:30'));
    expect(ev.summary).toBe('Moved review');
    expect(ev.sequence).toBeGreaterThan(Number(seq0));
    // The next sync reads it back as our own (by UID): no mirror row, and the event is not written again.
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    const rows = await db.select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId));
    expect(rows.map((r) => r.uid)).not.toContain(uid);
    expect([...(await radicale.objects()).entries()].filter(([, ics]) => ics.includes(uid))).toEqual(after);
  });

  it('a changed password answers 409 CALENDAR_REAUTH_REQUIRED naming the calendar until reconnect', async () => {
    const day = nextWeekday('thu', TZ);
    const body = { owner_email: owner, meeting_class: 'internal', start: day.at('09:00'), end: day.at('09:30') };
    radicale.setPassword('secret-two');
    const first = await call('POST', '/v1/bookings', { key: admin.key, body });
    expect(first.status, first.text).toBe(409);
    expect(first.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
    expect(first.body.error.message).toContain('caldav calendar "Work"');
    const search = await call('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('12:00') } } });
    expect(search.status).toBe(409);
    expect(search.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
    const list = await call('GET', `/v1/calendars?owner_email=${encodeURIComponent(owner)}`, { key: admin.key });
    expect(list.body.calendars[0]).toMatchObject({ type: 'caldav', status: 'reauth_required' });
    expect(list.body.calendars[0].last_sync_error).toMatch(/401/);

    const wrong = await connect('not-it');
    expect(wrong.status).toBe(400);
    const again = await connect('secret-two');
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ calendar_id: calendarId, status: 'active' });
    const ok = await call('POST', '/v1/bookings', { key: admin.key, body });
    expect(ok.status, ok.text).toBe(201);
  });

  it('a weekly series with an EXDATE and a moved instance blocks exactly its times across the 2027 DST change', async () => {
    await radicale.putEvent(
      'weekly.ics',
      `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${BERLIN_VTIMEZONE.replace(/\n/g, '\r\n')}\r\n` +
        'BEGIN:VEVENT\r\nUID:weekly-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20270315T090000\r\nDTEND;TZID=Europe/Berlin:20270315T100000\r\n' +
        'RRULE:FREQ=WEEKLY;COUNT=5\r\nEXDATE;TZID=Europe/Berlin:20270322T090000\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n' +
        'BEGIN:VEVENT\r\nUID:weekly-1\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20270405T090000\r\n' +
        'DTSTART;TZID=Europe/Berlin:20270406T140000\r\nDTEND;TZID=Europe/Berlin:20270406T150000\r\nSUMMARY:Weekly (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
    );
    const db = await getDb();
    expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
    const rows = await db.select().from(calendarEvents).where(and(eq(calendarEvents.calendarId, calendarId), eq(calendarEvents.uid, 'weekly-1')));
    expect(rows.map((r) => [r.startAt.toISOString(), r.endAt.toISOString()]).sort()).toEqual([
      ['2027-03-15T08:00:00.000Z', '2027-03-15T09:00:00.000Z'],
      ['2027-03-29T07:00:00.000Z', '2027-03-29T08:00:00.000Z'],
      ['2027-04-06T12:00:00.000Z', '2027-04-06T13:00:00.000Z'],
      ['2027-04-12T07:00:00.000Z', '2027-04-12T08:00:00.000Z'],
    ]);
    const book = (date: string, from: string, to: string) => {
      const d = onDate(date, TZ);
      return call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: d.at(from), end: d.at(to) } });
    };
    for (const [date, from, to] of [['2027-03-15', '09:00', '09:30'], ['2027-03-29', '09:30', '10:00'], ['2027-04-06', '14:00', '14:30'], ['2027-04-12', '09:00', '10:00']]) {
      const r = await book(date, from, to);
      expect(r.body.error?.reason, `${date} ${from}`).toBe('SACRED_MEETING');
    }
    for (const [date, from, to] of [['2027-03-22', '09:00', '10:00'], ['2027-04-05', '09:00', '10:00'], ['2027-03-29', '08:00', '09:00'], ['2027-03-29', '10:00', '10:30']]) {
      const r = await book(date, from, to);
      expect(r.status, `${date} ${from}: ${r.text}`).toBe(201);
    }
  });
});
