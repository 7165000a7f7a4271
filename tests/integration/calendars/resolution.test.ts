import { eq } from 'drizzle-orm';
import { queryRows } from '@/db/hot/driver';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { calendars } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { registerProvider } from '@/server/domain/calendars/provider';
import { sealSecret } from '@/server/domain/sealing';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, nextWeekday, ownerIdOf, setupOwner } from '../scheduling/fixtures';

/**
 * Calendar resolution with connected calendars (docs/calendars.md):
 * CALENDAR_NOT_FOUND for an owner without any calendar, a disconnected
 * primary and an unmatched calendar_type; a booking goes to the resolved
 * calendar; credentials are stored sealed.
 */
registerProvider('caldav-test', () => ({
  listEvents: async () => ({ changed: [], removed: [], state: {} }),
  putBookingEvent: async (ev) => ({ resource: ev.uid, etag: null }),
  deleteBookingEvent: async () => {},
}));

let admin: TestCustomer;
const day = nextWeekday('wed', 'UTC');
const book = (owner: string, extra: Record<string, unknown> = {}, at = '10:00') =>
  call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at(at), end: day.at(`${at.slice(0, 3)}30`), ...extra } });

async function ownerWithProvider(primary: boolean) {
  const owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '20:00') });
  const db = await getDb();
  const ownerId = await ownerIdOf(admin, owner);
  const id = newId();
  if (primary) await db.update(calendars).set({ isPrimary: false }).where(eq(calendars.ownerId, ownerId));
  await db.insert(calendars).values({ id, customerId: admin.customerId, ownerId, type: 'caldav-test', displayName: 'Work', isPrimary: primary, status: 'active', lastSyncedAt: new Date() });
  return { owner, ownerId, id };
}

beforeAll(async () => {
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
  admin = await newCustomer();
});

describe('calendar resolution', () => {
  it('an owner without any calendar: CALENDAR_NOT_FOUND', async () => {
    const owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '20:00') });
    await (await getDb()).delete(calendars).where(eq(calendars.ownerId, await ownerIdOf(admin, owner)));
    const res = await book(owner);
    expect(res.status, res.text).toBe(404);
    expect(res.body.error.code).toBe('CALENDAR_NOT_FOUND');
  });

  it('a disconnected primary: CALENDAR_NOT_FOUND (the internal calendar is not primary, so nothing resolves)', async () => {
    const { owner, id } = await ownerWithProvider(true);
    expect((await book(owner)).body.calendar_type).toBe('caldav-test');
    const gone = await call('DELETE', `/v1/calendars/${id}?owner_email=${encodeURIComponent(owner)}`, { key: admin.key });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toMatchObject({ status: 'disconnected', is_primary: true });
    const res = await book(owner, {}, '12:00');
    expect(res.status, res.text).toBe(404);
    expect(res.body.error.code).toBe('CALENDAR_NOT_FOUND');
    expect((await book(owner, { calendar_type: 'caldav-test' }, '13:00')).body.error.code).toBe('CALENDAR_NOT_FOUND');
    expect((await book(owner, { calendar_type: 'internal' }, '14:00')).status).toBe(201);
  });

  it('an unmatched calendar_type: CALENDAR_NOT_FOUND; a matched one resolves even when not primary', async () => {
    const { owner } = await ownerWithProvider(false);
    const res = await book(owner, { calendar_type: 'google' });
    expect(res.status, res.text).toBe(404);
    expect(res.body.error.code).toBe('CALENDAR_NOT_FOUND');
    const typed = await book(owner, { calendar_type: 'caldav-test' });
    expect(typed.status, typed.text).toBe(201);
    expect(typed.body.calendar_type).toBe('caldav-test');
    expect((await book(owner, {}, '11:00')).body.calendar_type).toBe('internal');
  });

  it('PATCH makes a calendar primary and turns its conflict checking off and on', async () => {
    const { owner, id } = await ownerWithProvider(false);
    const other = await setupOwner(admin, { timeZone: 'UTC' });
    expect((await call('PATCH', `/v1/calendars/${id}`, { key: admin.key, body: { owner_email: other, make_primary: true } })).body.error.code).toBe('CALENDAR_NOT_FOUND');
    // a malformed id is an unknown one: 404, never a database error
    for (const bad of ['admin', 'cv_x', 'not-a-uuid']) {
      const r = await call('PATCH', `/v1/calendars/${bad}`, { key: admin.key, body: { owner_email: owner, check_conflicts: true } });
      expect([r.status, r.body.error.code]).toEqual([404, 'CALENDAR_NOT_FOUND']);
      const d = await call('DELETE', `/v1/calendars/${bad}?owner_email=${encodeURIComponent(owner)}`, { key: admin.key });
      expect([d.status, d.body.error.code]).toEqual([404, 'CALENDAR_NOT_FOUND']);
    }
    const primary = await call('PATCH', `/v1/calendars/${id}`, { key: admin.key, body: { owner_email: owner, make_primary: true } });
    expect(primary.status, primary.text).toBe(200);
    expect(primary.body).toMatchObject({ is_primary: true, check_conflicts: true });
    expect((await book(owner)).body.calendar_type).toBe('caldav-test');
    const off = await call('PATCH', `/v1/calendars/${id}`, { key: admin.key, body: { owner_email: owner, check_conflicts: false } });
    expect(off.body).toMatchObject({ is_primary: true, check_conflicts: false });
    const list = await call('GET', `/v1/calendars?owner_email=${encodeURIComponent(owner)}`, { key: admin.key });
    expect(list.body.calendars.map((c: { type: string; is_primary: boolean }) => [c.type, c.is_primary])).toEqual([
      ['caldav-test', true],
      ['internal', false],
    ]);
  });

  it('stores provider credentials sealed: the stored bytes hold neither the secret nor its base64', async () => {
    vi.stubEnv('CALENDAR_SECRET_KEYS', `k9:${Buffer.alloc(32, 9).toString('base64')}`);
    const { id } = await ownerWithProvider(false);
    const secret = `app-password-${newId()}`;
    const db = await getDb();
    await db.update(calendars).set({ credentials: sealSecret({ password: secret }) }).where(eq(calendars.id, id));
    const [raw] = await queryRows(db, 'select credentials::text as t from calendars where id = $1', [id]);
    const text = String(raw.t);
    expect(text).toContain('k9');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(secret).toString('base64'));
    expect(text).not.toContain(Buffer.from(JSON.stringify({ password: secret })).toString('base64'));
  });
});
