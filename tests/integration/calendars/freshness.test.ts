import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { calendarEvents, calendars } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { ProviderAuthError, ProviderUnavailableError, registerProvider, type CalendarProvider } from '@/server/domain/calendars/provider';
import { dueCalendars, syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, nextWeekday, ownerIdOf, setupOwner } from '../scheduling/fixtures';

/** dueCalendars with no batch limit: on a shared database other files' older calendars could fill a round's 50. */
const ALL = 1_000_000;

/**
 * docs/calendars.md "Freshness": a stale mirror is synced before a decision;
 * a provider that hangs or fails leaves the mirror in use while it is within
 * its hard bound and fails closed (503 CALENDAR_UNAVAILABLE, Retry-After)
 * beyond it; one sync of a calendar at a time through its lease; the
 * background round syncs what is due. Fake providers stand in for the network.
 */
type Mode = 'ok' | 'hang' | 'fail' | 'auth';
const fake = { mode: 'ok' as Mode, calls: 0, ics: '' };
const provider: CalendarProvider = {
  async listEvents(_range, _state, signal) {
    fake.calls++;
    if (fake.mode === 'hang') return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new ProviderUnavailableError('aborted'))));
    if (fake.mode === 'fail') throw new ProviderUnavailableError('HTTP 503 from the fake');
    if (fake.mode === 'auth') throw new ProviderAuthError('HTTP 401 from the fake');
    return { changed: [{ resource: 'r1', etag: String(fake.calls), ics: fake.ics }], removed: [], state: { n: fake.calls } };
  },
  async putBookingEvent(ev) {
    return { resource: ev.uid, etag: null };
  },
  async deleteBookingEvent() {},
};
registerProvider('fake', () => provider);

const TZ = 'UTC';
let admin: TestCustomer;
let owner: string;
let calendarId: string;
const day = nextWeekday('tue', TZ);

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ, workingHours: everyDay('08:00', '20:00') });
  const db = await getDb();
  calendarId = newId();
  await db.insert(calendars).values({ id: calendarId, customerId: admin.customerId, ownerId: await ownerIdOf(admin, owner), type: 'fake', displayName: 'Fake', status: 'active' });
  const ics = (s: string, e: string) => `DTSTART:${s.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}\r\nDTEND:${e.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`;
  fake.ics = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:busy-1\r\nDTSTAMP:20260101T000000Z\r\n${ics(day.at('10:00'), day.at('11:00'))}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
  expect((await syncCalendar(db, calendarId, new Date())).outcome).toBe('synced');
});

beforeEach(async () => {
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '0');
  vi.stubEnv('CALENDAR_HARD_STALE_SECONDS', '600');
  vi.stubEnv('CALENDAR_SYNC_TIMEOUT_MS', '10000');
  vi.stubEnv('CALENDAR_SYNC_INTERVAL_SECONDS', '30');
  fake.mode = 'ok';
  fake.calls = 0;
  await setSynced(new Date());
});

async function setSynced(at: Date | null) {
  const db = await getDb();
  await db.update(calendars).set({ lastSyncedAt: at, status: 'active', syncLeaseUntil: null, lastSyncError: null }).where(eq(calendars.id, calendarId));
}
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
const overlapping = () => call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('10:30'), end: day.at('11:30') } });
const calendarRow = async () => (await (await getDb()).select().from(calendars).where(eq(calendars.id, calendarId)))[0];

describe.each(['hang', 'fail'] as const)('a provider that %ss', (mode) => {
  it('leaves the mirror in use within the hard bound (provider events still sacred)', async () => {
    vi.stubEnv('CALENDAR_SYNC_TIMEOUT_MS', '200');
    await setSynced(ago(300));
    fake.mode = mode;
    const res = await overlapping();
    expect(fake.calls).toBe(1);
    expect(res.status, res.text).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'ARBITRATION_REJECTED', reason: 'SACRED_MEETING' });
    const row = await calendarRow();
    expect(row.lastSyncError).toMatch(mode === 'hang' ? /did not answer within 200 ms/ : /503/);
    expect(row.lastSyncedAt!.getTime()).toBeLessThan(Date.now() - 290_000);
    expect(row.syncLeaseUntil).toBeNull();
  });

  it('fails closed with 503 CALENDAR_UNAVAILABLE and Retry-After beyond the hard bound', async () => {
    vi.stubEnv('CALENDAR_SYNC_TIMEOUT_MS', '200');
    await setSynced(ago(601));
    fake.mode = mode;
    const search = await call('POST', '/v1/availability/search', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'external', duration_minutes: 30, window: { start: day.at('12:00'), end: day.at('14:00') } },
    });
    expect(search.status, search.text).toBe(503);
    expect(search.body.error.code).toBe('CALENDAR_UNAVAILABLE');
    expect(search.body.error.message).toContain('fake calendar "Fake"');
    expect(search.headers.get('retry-after')).toBe('30');
    const free = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('15:00'), end: day.at('15:30') } });
    expect(free.status).toBe(503);
  });
});

describe('freshness', () => {
  it('syncs a stale mirror before deciding once the provider answers again', async () => {
    await setSynced(ago(601));
    const res = await overlapping();
    expect(fake.calls).toBe(1);
    expect(res.body.error?.reason, res.text).toBe('SACRED_MEETING');
    expect((await calendarRow()).lastSyncedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('reads the mirror without the network while it is fresh', async () => {
    vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
    fake.mode = 'hang';
    const res = await overlapping();
    expect(fake.calls).toBe(0);
    expect(res.body.error?.reason).toBe('SACRED_MEETING');
  });

  it('a credential failure marks the calendar and answers 409 CALENDAR_REAUTH_REQUIRED', async () => {
    await setSynced(ago(30));
    fake.mode = 'auth';
    const res = await overlapping();
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
    expect((await calendarRow()).status).toBe('reauth_required');
    fake.mode = 'ok';
    expect((await overlapping()).body.error.code).toBe('CALENDAR_REAUTH_REQUIRED'); // until reconnected
  });

  it('a calendar refusal of a keyed booking is not stored under its key: the retry after reconnecting is decided anew', async () => {
    await setSynced(ago(30));
    fake.mode = 'auth';
    const idempotencyKey = `gate-${newId()}`;
    const booking = { owner_email: owner, meeting_class: 'external', start: day.at('16:00'), end: day.at('16:30') };
    const refused = await call('POST', '/v1/bookings', { key: admin.key, body: booking, idempotencyKey });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
    fake.mode = 'ok';
    await setSynced(new Date()); // reconnected
    const retried = await call('POST', '/v1/bookings', { key: admin.key, body: booking, idempotencyKey });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('one sync of a calendar at a time: a held lease turns a second sync away', async () => {
    const db = await getDb();
    await db.update(calendars).set({ syncLeaseUntil: new Date(Date.now() + 60_000) }).where(eq(calendars.id, calendarId));
    expect(await syncCalendar(db, calendarId, new Date())).toEqual({ outcome: 'busy' });
    expect(fake.calls).toBe(0);
    await setSynced(ago(120));
    await db.update(calendars).set({ syncLeaseUntil: new Date(Date.now() + 60_000) }).where(eq(calendars.id, calendarId));
    expect(await dueCalendars(db, new Date(), 30_000, ALL)).not.toContain(calendarId);
  });

  it('the background round picks calendars not synced within the interval, and only those', async () => {
    // dueCalendars is what each round of syncDueCalendars syncs; the round itself would also sync other files' calendars.
    const db = await getDb();
    await setSynced(ago(10));
    expect(await dueCalendars(db, new Date(), 30_000, ALL)).not.toContain(calendarId);
    await setSynced(ago(31));
    expect(await dueCalendars(db, new Date(), 30_000, ALL)).toContain(calendarId);
    expect(await syncCalendar(db, calendarId, new Date())).toMatchObject({ outcome: 'synced' });
    expect(await dueCalendars(db, new Date(), 30_000, ALL)).not.toContain(calendarId);
    expect(fake.calls).toBe(1);
  });
});

describe('a sync that times out', () => {
  it('leaves the mirror exactly as it was (nothing applied half-way)', async () => {
    vi.stubEnv('CALENDAR_SYNC_TIMEOUT_MS', '200');
    const db = await getDb();
    const before = await db.select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId));
    expect(before.length).toBeGreaterThan(0);
    fake.mode = 'hang';
    expect(await syncCalendar(db, calendarId, new Date())).toMatchObject({ outcome: 'failed' });
    const after = await db.select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId));
    expect(after).toEqual(before);
  });
});

describe('check for conflicts', () => {
  it('a calendar with check_conflicts off does not count as busy; back on, it does', async () => {
    const evaluate = () => call('POST', '/v1/arbitration/evaluate', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('10:30'), end: day.at('11:30') } });
    const before = await evaluate();
    expect(before.status, before.text).toBe(200);
    expect(JSON.stringify(before.body)).toContain('SACRED_MEETING');
    const off = await call('PATCH', `/v1/calendars/${calendarId}`, { key: admin.key, body: { owner_email: owner, check_conflicts: false } });
    expect(off.status, off.text).toBe(200);
    const free = await evaluate();
    expect(JSON.stringify(free.body)).not.toContain('SACRED_MEETING');
    await call('PATCH', `/v1/calendars/${calendarId}`, { key: admin.key, body: { owner_email: owner, check_conflicts: true } });
    expect(JSON.stringify((await evaluate()).body)).toContain('SACRED_MEETING');
  });
});
