import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { setOwnerPassword } from '@/server/domain/passwords';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { api, newCustomer, type TestCustomer } from '../../helpers/app';
import { dashboardCookie } from '../../helpers/dashboardSession';
import { startFakeGoogle, type FakeGoogle } from '../../helpers/fakeGoogle';
import { startFakeMicrosoft, type FakeMicrosoft } from '../../helpers/fakeMicrosoft';
import { startRadicale, type TestRadicale } from '../../helpers/radicale';
import { call, everyDay, nextWeekday, ownerIdOf, setupOwner } from '../scheduling/fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * The dashboard's connected-calendar procedures (calendars.*) and the OAuth
 * connect routes under /dashboard/connections (start and callback) with the
 * owner's real session cookie, against Radicale and the loopback Google and
 * Microsoft fakes (tests/helpers).
 */
let admin: TestCustomer;
let google: FakeGoogle;
let ms: FakeMicrosoft;
let radicale: TestRadicale;
const PASSWORD = 'correct horse battery';

// The fakes listen on loopback: the outbound guard lets them through for this file only.
allowLoopbackOutbound();
beforeAll(async () => {
  admin = await newCustomer();
  [google, ms, radicale] = await Promise.all([startFakeGoogle(), startFakeMicrosoft(), startRadicale('dora', 'first-pass')]);
});
afterAll(async () => {
  await Promise.all([google?.close(), ms?.close(), radicale?.stop()]);
});
beforeEach(() => {
  vi.stubEnv('GOOGLE_CLIENT_ID', 'g-client');
  vi.stubEnv('GOOGLE_CLIENT_SECRET', 'g-secret');
  vi.stubEnv('GOOGLE_AUTH_URL', `${google.url}/authorize`);
  vi.stubEnv('GOOGLE_TOKEN_URL', `${google.url}/token`);
  vi.stubEnv('GOOGLE_CALENDAR_API', `${google.url}/calendar/v3`);
  vi.stubEnv('MICROSOFT_CLIENT_ID', 'm-client');
  vi.stubEnv('MICROSOFT_CLIENT_SECRET', 'm-secret');
  vi.stubEnv('MICROSOFT_AUTH_URL', `${ms.url}/authorize`);
  vi.stubEnv('MICROSOFT_TOKEN_URL', `${ms.url}/token`);
  vi.stubEnv('MICROSOFT_GRAPH_API', `${ms.url}/v1.0`);
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
});

/** A fresh owner with a dashboard password; its session cookie as Auth.js would set it, and an in-process tRPC caller. */
async function owner() {
  const email = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('08:00', '20:00') });
  const db = await getDb();
  await setOwnerPassword(db, admin.customerId, email, PASSWORD);
  const cookie = await dashboardCookie(email, PASSWORD);
  const req = new Request('http://scheduler.test/api/trpc');
  const trpc = createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: await ownerIdOf(admin, email), customerId: admin.customerId, email, role: 'member' }, db, now: () => new Date() });
  return { email, cookie, trpc };
}

/** Start the flow as the browser does: the route's redirect to the provider and the flow cookie it sets. */
async function start(cookie: string, provider: 'google' | 'microsoft') {
  const res = await api('GET', `/dashboard/connections/connect/${provider}`, { headers: { cookie } });
  expect(res.status).toBe(303);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const flow = /calendar_oauth_\w+=([^;]+)/.exec(setCookie)?.[1];
  return { location: new URL(res.headers.get('location')!), setCookie, flowCookie: `calendar_oauth_${provider}=${flow}` };
}

/** The provider's consent screen (the fake consents at once): where it sends the browser back. */
async function consent(location: URL): Promise<URL> {
  const res = await fetch(location, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

async function callback(provider: 'google' | 'microsoft', back: URL | string, cookie: string) {
  const u = typeof back === 'string' ? new URL(back, 'http://scheduler.test') : back;
  const res = await api('GET', `/dashboard/connections/oauth/${provider}${u.search}`, { headers: { cookie } });
  expect(res.status).toBe(303);
  return { location: new URL(res.headers.get('location')!), setCookie: res.headers.get('set-cookie') ?? '' };
}

describe('OAuth connect routes (Google and Microsoft fakes)', () => {
  it('connects Google: PKCE authorization request, HTTP-only flow cookie, code exchange, calendar listed and synced', async () => {
    const o = await owner();
    const day = nextWeekday('wed', 'Europe/Berlin');
    google.addEvent({ id: 'dash-1', iCalUID: 'dash-1@google.com', start: { dateTime: day.at('10:00') }, end: { dateTime: day.at('11:00') } });
    const s = await start(o.cookie, 'google');
    expect(s.location.origin + s.location.pathname).toBe(`${google.url}/authorize`);
    const q = Object.fromEntries(s.location.searchParams);
    expect(q).toMatchObject({ client_id: 'g-client', response_type: 'code', code_challenge_method: 'S256', redirect_uri: 'http://scheduler.test/dashboard/connections/oauth/google' });
    expect(q.state.length).toBeGreaterThanOrEqual(32);
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.setCookie).toMatch(/HttpOnly/i);
    expect(s.setCookie).toMatch(/SameSite=lax/i);
    expect(s.setCookie).toMatch(/Path=\/dashboard\/connections\/oauth/);
    // The cookie carries neither the state nor the verifier readably.
    expect(decodeURIComponent(s.flowCookie)).not.toContain(q.state);

    const back = await consent(s.location);
    expect(back.searchParams.get('state')).toBe(q.state);
    const done = await callback('google', back, `${o.cookie}; ${s.flowCookie}`);
    expect(done.location.pathname).toBe('/dashboard/connections');
    expect(done.location.searchParams.get('provider')).toBe('google');
    const connectedId = done.location.searchParams.get('connected');
    expect(connectedId).toBeTruthy();
    expect(done.setCookie).toMatch(/calendar_oauth_google=;.*Max-Age=0/i);

    const { calendars, providers } = await o.trpc.calendars.list();
    expect(providers).toEqual({ google: true, microsoft: true });
    const g = calendars.find((c) => c.calendar_id === connectedId)!;
    // Named after the account's primary entry in calendarList.
    expect(g).toMatchObject({ type: 'google', display_name: 'owner@example.com', status: 'active', last_sync_error: null });
    expect(g.last_synced_at).not.toBeNull();
    // The synced event is busy time for agents.
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: o.email, meeting_class: 'external', start: day.at('10:30'), end: day.at('11:00') } });
    expect(res.body.error?.reason, res.text).toBe('SACRED_MEETING');
  });

  it('refuses a callback whose state does not match the flow cookie, and connects nothing', async () => {
    const o = await owner();
    const s = await start(o.cookie, 'google');
    const back = await consent(s.location);
    back.searchParams.set('state', 'forged-state-value');
    const done = await callback('google', back, `${o.cookie}; ${s.flowCookie}`);
    expect(Object.fromEntries(done.location.searchParams)).toEqual({ provider: 'google', error: 'state_mismatch' });
    expect((await o.trpc.calendars.list()).calendars.map((c) => c.type)).toEqual(['internal']);
  });

  it('refuses a callback without the flow cookie (no PKCE verifier to send)', async () => {
    const o = await owner();
    const s = await start(o.cookie, 'google');
    const back = await consent(s.location);
    const done = await callback('google', back, o.cookie);
    expect(done.location.searchParams.get('error')).toBe('no_flow');
    // A tampered cookie is no better than none.
    const tampered = await callback('google', back, `${o.cookie}; ${s.flowCookie.slice(0, -4)}AAAA`);
    expect(tampered.location.searchParams.get('error')).toBe('no_flow');
    expect((await o.trpc.calendars.list()).calendars).toHaveLength(1);
  });

  it('reports invalid_grant from the token endpoint (a code used twice) and connects nothing more', async () => {
    const o = await owner();
    const s = await start(o.cookie, 'google');
    const back = await consent(s.location);
    const first = await callback('google', back, `${o.cookie}; ${s.flowCookie}`);
    expect(first.location.searchParams.get('connected')).toBeTruthy();
    const again = await callback('google', back, `${o.cookie}; ${s.flowCookie}`);
    expect(Object.fromEntries(again.location.searchParams)).toEqual({ provider: 'google', error: 'grant_refused' });
    expect((await o.trpc.calendars.list()).calendars.filter((c) => c.type === 'google')).toHaveLength(1);
  });

  it("refuses another owner's flow cookie, a denied consent, and asks a signed-out browser to sign in", async () => {
    const a = await owner();
    const b = await owner();
    const s = await start(a.cookie, 'google');
    const back = await consent(s.location);
    expect((await callback('google', back, `${b.cookie}; ${s.flowCookie}`)).location.searchParams.get('error')).toBe('other_session');

    google.authorize.deny = true;
    try {
      const d = await start(a.cookie, 'google');
      const denied = await consent(d.location);
      expect(denied.searchParams.get('error')).toBe('access_denied');
      expect((await callback('google', denied, `${a.cookie}; ${d.flowCookie}`)).location.searchParams.get('error')).toBe('access_denied');
    } finally {
      google.authorize.deny = false;
    }
    const anon = await callback('google', back, s.flowCookie);
    expect(anon.location.pathname).toBe('/signin');
  });

  it('connects Microsoft 365 through the same flow (default calendar, named from /me/calendars)', async () => {
    const o = await owner();
    const s = await start(o.cookie, 'microsoft');
    expect(Object.fromEntries(s.location.searchParams)).toMatchObject({ client_id: 'm-client', code_challenge_method: 'S256', response_mode: 'query' });
    const done = await callback('microsoft', await consent(s.location), `${o.cookie}; ${s.flowCookie}`);
    const id = done.location.searchParams.get('connected');
    const m = (await o.trpc.calendars.list()).calendars.find((c) => c.calendar_id === id);
    expect(m).toMatchObject({ type: 'microsoft', display_name: 'Calendar', status: 'active' });
  });

  it('says a provider is not configured instead of starting a flow', async () => {
    const o = await owner();
    vi.stubEnv('GOOGLE_CLIENT_ID', '');
    expect((await o.trpc.calendars.list()).providers).toEqual({ google: false, microsoft: true });
    const res = await api('GET', '/dashboard/connections/connect/google', { headers: { cookie: o.cookie } });
    expect(res.status).toBe(303);
    expect(Object.fromEntries(new URL(res.headers.get('location')!).searchParams)).toEqual({ provider: 'google', error: 'not_configured' });
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('calendars.* procedures with CalDAV (Radicale)', () => {
  it('discovers, connects, sets check-for-conflicts and primary, goes reauth_required on a password change, reconnects, disconnects', async () => {
    const o = await owner();
    const account = { server_url: radicale.url, username: radicale.user, password: 'first-pass' };
    await expect(o.trpc.calendars.discoverCaldav({ ...account, password: 'wrong' })).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
    const { calendars: found } = await o.trpc.calendars.discoverCaldav(account);
    expect(found).toEqual([{ url: radicale.calendarUrl, display_name: 'Work' }]);
    await expect(o.trpc.calendars.connectCaldav({ ...account, calendar_urls: [] })).rejects.toMatchObject({ code: 'BAD_REQUEST' });

    const day = nextWeekday('thu', 'Europe/Berlin');
    const stamp = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    await radicale.putEvent('direct.ics', `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:direct-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${stamp(day.at('14:00'))}\r\nDTEND:${stamp(day.at('15:00'))}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`);
    const { calendars: connected } = await o.trpc.calendars.connectCaldav({ ...account, calendar_urls: [found[0].url], make_primary: true, check_conflicts: true });
    expect(connected).toEqual([expect.objectContaining({ type: 'caldav', display_name: 'Work', is_primary: true, status: 'active', check_conflicts: true, sync: 'synced' })]);
    const id = connected[0].calendar_id;
    const book = () => call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: o.email, meeting_class: 'external', start: day.at('14:00'), end: day.at('14:30') } });
    expect((await book()).body.error?.reason).toBe('SACRED_MEETING');

    // Not checked for conflicts: its events no longer count as busy (the booking is written to it instead).
    expect(await o.trpc.calendars.update({ calendar_id: id, check_conflicts: false })).toMatchObject({ check_conflicts: false });
    const booked = await book();
    expect(booked.status, booked.text).toBe(201);
    await call('POST', `/v1/bookings/${booked.body.booking_id}/cancel`, { key: admin.key, body: {} });
    await o.trpc.calendars.update({ calendar_id: id, check_conflicts: true });

    // The internal calendar can be made primary again, and back.
    const internal = (await o.trpc.calendars.list()).calendars.find((c) => c.type === 'internal')!;
    expect(await o.trpc.calendars.update({ calendar_id: internal.calendar_id, make_primary: true })).toMatchObject({ is_primary: true });
    await o.trpc.calendars.update({ calendar_id: id, make_primary: true });

    // The password changes on the server: the next sync marks it, requests fail closed.
    radicale.setPassword('second-pass');
    const { syncCalendar } = await import('@/server/domain/calendars/sync');
    expect((await syncCalendar(await getDb(), id, new Date())).outcome).toBe('reauth_required');
    const listed = (await o.trpc.calendars.list()).calendars.find((c) => c.calendar_id === id)!;
    expect(listed.status).toBe('reauth_required');
    expect(listed.last_sync_error).toMatch(/401/);
    expect((await book()).body.error?.code).toBe('CALENDAR_REAUTH_REQUIRED');
    await expect(o.trpc.calendars.reconnectCaldav({ calendar_id: id, password: 'first-pass' })).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
    expect(await o.trpc.calendars.reconnectCaldav({ calendar_id: id, password: 'second-pass' })).toMatchObject({ calendar_id: id, status: 'active', sync: 'synced', last_sync_error: null });
    expect((await book()).body.error?.reason).toBe('SACRED_MEETING');

    // Disconnect: no longer busy, no longer primary-capable until reconnected.
    expect(await o.trpc.calendars.disconnect({ calendar_id: id })).toMatchObject({ status: 'disconnected', last_synced_at: null });
    await expect(o.trpc.calendars.update({ calendar_id: id, make_primary: true })).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
    await expect(o.trpc.calendars.disconnect({ calendar_id: 'not-a-calendar' })).rejects.toMatchObject({ cause: { code: 'CALENDAR_NOT_FOUND' } });
  });
});
