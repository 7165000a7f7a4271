import http from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { calendarEvents, calendars } from '@/db/schema';
import { connectCaldav } from '@/server/domain/calendars/calendarService';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startRadicale, type TestRadicale } from '../../helpers/radicale';
import { everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * Incremental CalDAV sync through WebDAV sync-collection (RFC 6578) against
 * Radicale (docs/calendars.md "Sync"): after the first full listing the
 * collection's sync token is stored; a later sync is one REPORT that applies
 * exactly the created, modified and deleted objects; a token the server no
 * longer accepts means a full listing, not a credential failure.
 */
let radicale: TestRadicale;
let admin: TestCustomer;
let owner: string;
let calendarId: string;
const day = nextWeekday('tue', 'UTC');

// The fakes listen on loopback: the outbound guard lets them through for this file only.
allowLoopbackOutbound();
beforeAll(async () => {
  radicale = await startRadicale('syncer', 'sync-pass');
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '20:00') });
});
afterAll(async () => {
  await radicale?.stop();
});
beforeEach(() => {
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
  vi.restoreAllMocks();
});

const ical = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const vevent = (uid: string, start: string, end: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${ical(start)}\r\nDTEND:${ical(end)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;

async function mirror() {
  const rows = await (await getDb()).select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId));
  return new Map(rows.map((r) => [r.uid, { id: r.id, start: r.startAt.toISOString(), end: r.endAt.toISOString() }]));
}
async function state() {
  const [row] = await (await getDb()).select().from(calendars).where(eq(calendars.id, calendarId));
  return row;
}
/** The HTTP methods the next sync sends to Radicale (through the outbound guard, which uses node:http). */
async function syncCounting() {
  const spy = vi.spyOn(http, 'request');
  const result = await syncCalendar(await getDb(), calendarId, new Date());
  const methods = spy.mock.calls.map((args) => String((args[1] as http.RequestOptions | undefined)?.method ?? 'GET').toUpperCase());
  spy.mockRestore();
  return { result, methods };
}

describe('CalDAV incremental sync (sync-collection, Radicale)', () => {
  it('stores the sync token at the first sync, then applies exactly one create, one change and one delete in one REPORT', async () => {
    await radicale.putEvent('a.ics', vevent('a', day.at('09:00'), day.at('10:00')));
    await radicale.putEvent('b.ics', vevent('b', day.at('11:00'), day.at('12:00')));
    await radicale.putEvent('c.ics', vevent('c', day.at('13:00'), day.at('14:00')));
    const { calendar, sync } = await connectCaldav(await getDb(), admin.customerId, owner, { serverUrl: radicale.url, username: radicale.user, password: 'sync-pass', calendarUrl: radicale.calendarUrl }, new Date());
    calendarId = calendar.id;
    expect(sync).toMatchObject({ outcome: 'synced', changed: 3 });
    const cursor = ((await state()).syncState as { cursor: { syncToken?: string; etags: Record<string, string> } }).cursor;
    expect(cursor.syncToken).toMatch(/^http:\/\/radicale\.org\/ns\/sync\//);
    expect(cursor.etags).toEqual({});
    const before = await mirror();
    expect([...before.keys()].sort()).toEqual(['a', 'b', 'c']);

    // Nothing changed: one REPORT, nothing applied.
    const idle = await syncCounting();
    expect(idle.result).toEqual({ outcome: 'synced', changed: 0, removed: 0 });
    expect(idle.methods).toEqual(['REPORT']);

    await radicale.putEvent('d.ics', vevent('d', day.at('15:00'), day.at('16:00')));
    await radicale.putEvent('b.ics', vevent('b', day.at('11:30'), day.at('12:30')));
    const del = await fetch(`${radicale.calendarUrl}c.ics`, { method: 'DELETE', headers: { authorization: `Basic ${Buffer.from('syncer:sync-pass').toString('base64')}` } });
    expect(del.status).toBe(200);

    const inc = await syncCounting();
    expect(inc.result).toEqual({ outcome: 'synced', changed: 2, removed: 1 });
    expect(inc.methods).toEqual(['REPORT']);
    const after = await mirror();
    expect([...after.keys()].sort()).toEqual(['a', 'b', 'd']);
    // Untouched rows stay as they were; the changed and new ones carry their new times.
    expect(after.get('a')).toEqual(before.get('a'));
    expect(after.get('b')).toMatchObject({ start: day.at('11:30'), end: day.at('12:30') });
    expect(after.get('d')).toMatchObject({ start: day.at('15:00'), end: day.at('16:00') });
    const next = ((await state()).syncState as { cursor: { syncToken: string } }).cursor.syncToken;
    expect(next).not.toBe(cursor.syncToken);
  });

  it('lists everything again when the server refuses the stored token (403 valid-sync-token), without marking the calendar for reauthorisation', async () => {
    const row = await state();
    const s = row.syncState as { horizonEnd: number; cursor: Record<string, unknown> };
    await (await getDb())
      .update(calendars)
      .set({ syncState: { ...s, cursor: { ...s.cursor, syncToken: 'http://radicale.org/ns/sync/0000000000000000000000000000000000000000000000000000000000000000' } } })
      .where(eq(calendars.id, calendarId));
    await radicale.putEvent('e.ics', vevent('e', day.at('17:00'), day.at('18:00')));
    const { result, methods } = await syncCounting();
    expect(result).toEqual({ outcome: 'synced', changed: 4, removed: 0 });
    // The refused REPORT, then the full listing: PROPFIND (token), calendar-query, multiget.
    expect(methods).toEqual(['REPORT', 'PROPFIND', 'REPORT', 'REPORT']);
    const after = await state();
    expect(after.status).toBe('active');
    expect(after.lastSyncError).toBeNull();
    expect((after.syncState as { cursor: { syncToken: string } }).cursor.syncToken).toMatch(/^http:\/\/radicale\.org\/ns\/sync\/(?!0{64})/);
    expect([...(await mirror()).keys()].sort()).toEqual(['a', 'b', 'd', 'e']);
  });
});
