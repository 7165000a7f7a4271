import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { calendarEvents, calendars } from '@/db/schema';
import { connectMicrosoft } from '@/server/domain/calendars/calendarService';
import { microsoftAuthorizationUrl } from '@/server/domain/calendars/microsoft';
import { pkcePair } from '@/server/domain/calendars/oauth';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startFakeMicrosoft, type FakeMicrosoft } from '../../helpers/fakeMicrosoft';
import { call, everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * Microsoft 365 against a loopback fake of the identity platform and Graph
 * (tests/helpers/fakeMicrosoft.ts): connect with PKCE, initial (paged) and
 * incremental delta sync, delta-token invalidation (410), token refresh,
 * invalid_grant, booking write-back recognised by event id. Not the real service.
 */
let ms: FakeMicrosoft;
let admin: TestCustomer;
let owner: string;
let calendarId: string;
const day = nextWeekday('fri', 'UTC');
const REDIRECT = 'http://127.0.0.1/oauth/microsoft/callback';

// The fakes listen on loopback: the outbound guard lets them through for this file only.
allowLoopbackOutbound();
beforeAll(async () => {
  ms = await startFakeMicrosoft();
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '20:00') });
});
afterAll(async () => {
  await ms?.close();
});
beforeEach(() => {
  vi.stubEnv('MICROSOFT_CLIENT_ID', 'ms-client');
  vi.stubEnv('MICROSOFT_CLIENT_SECRET', 'ms-secret');
  vi.stubEnv('MICROSOFT_AUTH_URL', `${ms.url}/authorize`);
  vi.stubEnv('MICROSOFT_TOKEN_URL', `${ms.url}/token`);
  vi.stubEnv('MICROSOFT_GRAPH_API', `${ms.url}/v1.0`);
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
});

const mirror = async () => (await (await getDb()).select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendarId))).map((r) => r.uid).sort();
const sync = async () => syncCalendar(await getDb(), calendarId, new Date());

describe('Microsoft 365 (loopback fake)', () => {
  it('connects with PKCE and syncs every page of the initial delta', async () => {
    for (const [id, h] of [['m1', '09'], ['m2', '11'], ['m3', '13']]) ms.addEvent(id, day.at(`${h}:00`), day.at(`${h}:30`));
    const { verifier, challenge } = pkcePair();
    const url = new URL(microsoftAuthorizationUrl({ redirectUri: REDIRECT, state: 'st', codeChallenge: challenge }));
    expect(url.searchParams.get('scope')).toContain('offline_access');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const { calendar, sync: first } = await connectMicrosoft(await getDb(), admin.customerId, owner, { code: ms.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
    calendarId = calendar.id;
    expect(first.outcome).toBe('synced');
    expect(ms.counts.pages).toBe(2);
    expect(await mirror()).toEqual(['uid-m1', 'uid-m2', 'uid-m3']);
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('11:15'), end: day.at('11:45') } });
    expect(res.body.error?.reason, res.text).toBe('SACRED_MEETING');
  });

  it('applies increments from the delta link, and starts over on 410', async () => {
    ms.removeEvent('m1');
    ms.addEvent('m4', day.at('15:00'), day.at('16:00'));
    const initial = ms.counts.initial;
    expect((await sync()).outcome).toBe('synced');
    expect(ms.counts.delta).toBe(1);
    expect(ms.counts.initial).toBe(initial);
    expect(await mirror()).toEqual(['uid-m2', 'uid-m3', 'uid-m4']);
    ms.invalidateDeltaTokens();
    ms.removeEvent('m2');
    expect((await sync()).outcome).toBe('synced');
    expect(ms.counts.gone410).toBe(1);
    expect(ms.counts.initial).toBe(initial + 1);
    expect(await mirror()).toEqual(['uid-m3', 'uid-m4']);
  });

  it('refreshes the access token (rotating refresh token stored sealed)', async () => {
    const db = await getDb();
    const [before] = await db.select().from(calendars).where(eq(calendars.id, calendarId));
    ms.expireAccessTokens();
    expect((await sync()).outcome).toBe('synced');
    expect(ms.counts.refresh).toBe(1);
    const [after] = await db.select().from(calendars).where(eq(calendars.id, calendarId));
    expect(after.credentials).not.toEqual(before.credentials);
    ms.expireAccessTokens();
    expect((await sync()).outcome).toBe('synced'); // the rotated refresh token was kept
    expect(ms.counts.refresh).toBe(2);
  });

  it('writes a booking, recognises it by event id on the way back, and deletes it on cancel', async () => {
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('17:00'), end: day.at('17:30'), title: 'Graph' } });
    expect(booking.status, booking.text).toBe(201);
    expect(booking.body.calendar_type).toBe('microsoft');
    expect((await sync()).outcome).toBe('synced');
    const written = [...ms.events.values()].find((e) => e.subject === 'Graph');
    expect(written).toMatchObject({ removed: false, start: { dateTime: `${day.at('17:00').slice(0, 19)}.0000000` } });
    expect((await sync()).outcome).toBe('synced');
    expect(await mirror()).not.toContain(written!.iCalUId);
    expect((await call('POST', `/v1/bookings/${booking.body.booking_id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);
    expect((await sync()).outcome).toBe('synced');
    expect(written!.removed).toBe(true);
  });

  it('a reschedule updates the written event in place (PATCH, same id and iCalUId), never a second one', async () => {
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('18:00'), end: day.at('18:30'), title: 'Graph move' } });
    expect(booking.status, booking.text).toBe(201);
    expect((await sync()).outcome).toBe('synced');
    const written = [...ms.events.values()].filter((e) => e.subject === 'Graph move');
    expect(written).toHaveLength(1);
    const { id, iCalUId } = written[0];
    const created = ms.counts.created;
    const moved = await call('POST', `/v1/bookings/${booking.body.booking_id}/reschedule`, { key: admin.key, body: { start: day.at('19:00'), end: day.at('19:30') } });
    expect(moved.status, moved.text).toBe(200);
    expect((await sync()).outcome).toBe('synced');
    expect([...ms.events.values()].filter((e) => e.subject === 'Graph move')).toEqual([
      expect.objectContaining({ id, iCalUId, removed: false, start: { dateTime: `${day.at('19:00').slice(0, 19)}.0000000`, timeZone: 'UTC' }, end: { dateTime: `${day.at('19:30').slice(0, 19)}.0000000`, timeZone: 'UTC' } }),
    ]);
    expect(ms.counts.created).toBe(created);
    // Read back on the next sync as our own event (by id): no mirror row; and written once per revision.
    const patched = ms.counts.patched;
    expect((await sync()).outcome).toBe('synced');
    expect(await mirror()).not.toContain(iCalUId);
    expect(ms.counts.patched).toBe(patched);
  });

  it('invalid_grant marks the calendar reauth_required', async () => {
    ms.expireAccessTokens();
    ms.revokeRefreshTokens();
    expect(await sync()).toMatchObject({ outcome: 'reauth_required' });
    const res = await call('POST', '/v1/availability/search', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('12:00') } },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CALENDAR_REAUTH_REQUIRED');
  });
});
