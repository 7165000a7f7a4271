import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { calendarEvents, calendars } from '@/db/schema';
import { connectGoogle } from '@/server/domain/calendars/calendarService';
import { googleAuthorizationUrl, pkcePair } from '@/server/domain/calendars/google';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startFakeGoogle, type FakeGoogle } from '../../helpers/fakeGoogle';
import { call, everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * Google Calendar against a loopback fake of its documented endpoints
 * (tests/helpers/fakeGoogle.ts): connect with PKCE, initial and incremental
 * sync, sync-token invalidation (410 -> full resync), token refresh,
 * invalid_grant -> reauth_required, booking write-back. Not the real service.
 */
let google: FakeGoogle;
let admin: TestCustomer;
let owner: string;
let calendarId: string;
const day = nextWeekday('thu', 'UTC');
const REDIRECT = 'http://127.0.0.1/oauth/google/callback';

// The fakes listen on loopback: the outbound guard lets them through for this file only.
allowLoopbackOutbound();
beforeAll(async () => {
  google = await startFakeGoogle();
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '20:00') });
});
afterAll(async () => {
  await google?.close();
});
beforeEach(() => {
  vi.stubEnv('GOOGLE_CLIENT_ID', 'client-1');
  vi.stubEnv('GOOGLE_CLIENT_SECRET', 'secret-1');
  vi.stubEnv('GOOGLE_AUTH_URL', `${google.url}/auth`);
  vi.stubEnv('GOOGLE_TOKEN_URL', `${google.url}/token`);
  vi.stubEnv('GOOGLE_CALENDAR_API', `${google.url}/calendar/v3`);
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
});

const mirror = async () => (await (await getDb()).select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId))).map((r) => r.uid).sort();
const sync = async () => syncCalendar(await getDb(), calendarId, new Date());

describe('Google Calendar (loopback fake)', () => {
  it('connects with PKCE and syncs the calendar in full', async () => {
    google.addEvent({ id: 'g1', iCalUID: 'g1@google.com', start: { dateTime: day.at('10:00') }, end: { dateTime: day.at('11:00') } });
    const { verifier, challenge } = pkcePair();
    const url = new URL(googleAuthorizationUrl({ redirectUri: REDIRECT, state: 's1', codeChallenge: challenge }));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: 'client-1', code_challenge_method: 'S256', code_challenge: challenge, access_type: 'offline', state: 's1' });
    const db = await getDb();
    await expect(connectGoogle(db, admin.customerId, owner, { code: google.issueCode(challenge), codeVerifier: 'wrong', redirectUri: REDIRECT }, new Date())).rejects.toThrow(/invalid_grant/);
    const { calendar, sync: first } = await connectGoogle(db, admin.customerId, owner, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
    calendarId = calendar.id;
    expect(first.outcome).toBe('synced');
    expect(calendar).toMatchObject({ type: 'google', isPrimary: true, status: 'active' });
    expect(await mirror()).toEqual(['g1@google.com']);
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('10:30'), end: day.at('11:00') } });
    expect(res.body.error?.reason, res.text).toBe('SACRED_MEETING');
  });

  it('syncs increments with the sync token, and starts over on 410', async () => {
    google.addEvent({ id: 'g2', iCalUID: 'g2@google.com', start: { dateTime: day.at('12:00') }, end: { dateTime: day.at('13:00') } });
    google.cancelEvent('g1');
    const before = { ...google.counts };
    expect((await sync()).outcome).toBe('synced');
    expect(google.counts.deltaLists).toBe(before.deltaLists + 1);
    expect(google.counts.fullLists).toBe(before.fullLists);
    expect(await mirror()).toEqual(['g2@google.com']);

    google.invalidateSyncTokens();
    google.addEvent({ id: 'g3', iCalUID: 'g3@google.com', start: { dateTime: day.at('14:00') }, end: { dateTime: day.at('15:00') } });
    expect((await sync()).outcome).toBe('synced');
    expect(google.counts.gone410).toBe(before.gone410 + 1);
    expect(google.counts.fullLists).toBe(before.fullLists + 1);
    expect(await mirror()).toEqual(['g2@google.com', 'g3@google.com']);
  });

  it('refreshes an expired access token and stores the new one sealed', async () => {
    const db = await getDb();
    const [before] = await db.select().from(calendars).where(eq(calendars.id, calendarId));
    google.expireAccessTokens();
    const refreshes = google.counts.refresh;
    expect((await sync()).outcome).toBe('synced');
    expect(google.counts.refresh).toBe(refreshes + 1);
    const [after] = await db.select().from(calendars).where(eq(calendars.id, calendarId));
    expect(after.credentials).not.toEqual(before.credentials);
    expect(JSON.stringify(after.credentials)).not.toMatch(/at-|rt-/);
    expect((await sync()).outcome).toBe('synced');
    expect(google.counts.refresh).toBe(refreshes + 1);
  });

  it('writes a booking with our iCalUID, does not import it back, and deletes it on cancel', async () => {
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('16:00'), end: day.at('16:30'), title: 'Sync' } });
    expect(booking.status, booking.text).toBe(201);
    expect(booking.body.calendar_type).toBe('google');
    expect((await sync()).outcome).toBe('synced');
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    const written = [...google.events.values()].find((e) => e.iCalUID === uid);
    expect(written).toMatchObject({ status: 'confirmed', start: { dateTime: day.at('16:00') }, end: { dateTime: day.at('16:30') } });
    expect((await sync()).outcome).toBe('synced');
    expect(await mirror()).not.toContain(uid);
    expect((await call('POST', `/v1/bookings/${booking.body.booking_id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);
    expect((await sync()).outcome).toBe('synced');
    expect(written!.status).toBe('cancelled');
  });

  it('a reschedule updates the written event in place (PATCH, same iCalUID), never a second one', async () => {
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('17:00'), end: day.at('17:30'), title: 'Moved' } });
    expect(booking.status, booking.text).toBe(201);
    expect((await sync()).outcome).toBe('synced');
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    const moved = await call('POST', `/v1/bookings/${booking.body.booking_id}/reschedule`, { key: admin.key, body: { start: day.at('18:00'), end: day.at('18:30') } });
    expect(moved.status, moved.text).toBe(200);
    expect((await sync()).outcome).toBe('synced');
    const written = [...google.events.values()].filter((e) => e.iCalUID === uid);
    expect(written).toEqual([expect.objectContaining({ status: 'confirmed', start: { dateTime: day.at('18:00') }, end: { dateTime: day.at('18:30') } })]);
    expect(await mirror()).not.toContain(uid);
    // Written once per revision: a further sync leaves it alone.
    const rev = written[0].rev;
    expect((await sync()).outcome).toBe('synced');
    expect([...google.events.values()].find((e) => e.iCalUID === uid)!.rev).toBe(rev);
  });

  it('invalid_grant on refresh marks the calendar reauth_required: 409 CALENDAR_REAUTH_REQUIRED', async () => {
    google.expireAccessTokens();
    google.revokeRefreshTokens();
    expect(await sync()).toMatchObject({ outcome: 'reauth_required' });
    const db = await getDb();
    const [row] = await db.select().from(calendars).where(and(eq(calendars.id, calendarId)));
    expect(row.status).toBe('reauth_required');
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('17:00'), end: day.at('17:30') } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
  });
});
