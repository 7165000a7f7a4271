import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { webhookDeliveries } from '@/db/schema';
import { getDb } from '@/server/db';
import { connectGoogle } from '@/server/domain/calendars/calendarService';
import { pkcePair } from '@/server/domain/calendars/oauth';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startFakeGoogle, type FakeGoogle } from '../../helpers/fakeGoogle';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { call, nextWeekday, publicOwner } from '../public/fixtures';

/**
 * docs/webhooks.md "Video links": the events and notifications about a booking carry its video
 * link as the booking's answers show it; a hold's confirm takes a `video` like a booking does
 * (docs/calendars.md "Video links"). Against the loopback Google fake.
 */
let google: FakeGoogle;
let admin: TestCustomer;
let endpointId: string;
const REDIRECT = 'http://127.0.0.1/oauth/callback';
const day = nextWeekday('thu', 'UTC', 2);
const EVENTS = ['booking.created', 'booking.confirmed', 'booking.rescheduled', 'booking.cancelled'];

allowLoopbackOutbound();
beforeAll(async () => {
  google = await startFakeGoogle();
  admin = await newCustomer();
  const hook = await call('POST', '/v1/webhooks', { key: admin.key, body: { url: 'http://127.0.0.1:9/video', events: EVENTS, include_own: true } });
  expect(hook.status, hook.text).toBe(201);
  endpointId = hook.body.id;
});
afterAll(async () => {
  await google?.close();
});
beforeEach(() => {
  vi.stubEnv('GOOGLE_CLIENT_ID', 'client-1');
  vi.stubEnv('GOOGLE_CLIENT_SECRET', 'secret-1');
  vi.stubEnv('GOOGLE_TOKEN_URL', `${google.url}/token`);
  vi.stubEnv('GOOGLE_CALENDAR_API', `${google.url}/calendar/v3`);
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
  google.conference.mode = 'success';
});

async function ownerWithGoogle(name: string): Promise<{ owner: string; calendarId: string }> {
  const s = await publicOwner(admin, { name });
  const { verifier, challenge } = pkcePair();
  const { calendar } = await connectGoogle(await getDb(), admin.customerId, s.ownerEmail, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
  return { owner: s.ownerEmail, calendarId: calendar.id };
}

type Event = { type: string; data: Record<string, unknown> };
const events = async (bookingId: string): Promise<Event[]> =>
  (await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)))
    .map((r) => JSON.parse(r.body) as Event)
    .filter((e) => e.data.booking_id === bookingId);
const notices = async (bookingId: string) => {
  const res = await call('GET', '/v1/notifications?since=0&include_own=true', { key: admin.key });
  expect(res.status, res.text).toBe(200);
  return (res.body.notifications as { kind: string; data: Record<string, unknown> }[]).filter((n) => n.data.booking_id === bookingId);
};

describe('video links in events and notifications', () => {
  it('a fixed link is ready in booking.created; a Meet link pending at booking time is pending, then ready, then removed', async () => {
    const { owner, calendarId } = await ownerWithGoogle('Vi Events');
    const zoom = 'https://zoom.example/j/77';
    const fixed = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('09:00'), end: day.at('09:30'), video: { provider: 'link', url: zoom } } });
    expect(fixed.status, fixed.text).toBe(201);
    expect((await events(fixed.body.booking_id)).map((e) => [e.type, e.data.video])).toEqual([['booking.created', { provider: 'link', status: 'ready', join_url: zoom, error: null }]]);

    const meet = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30'), video: { provider: 'google_meet' } } });
    expect(meet.status, meet.text).toBe(201);
    const id = meet.body.booking_id;
    expect((await events(id))[0]).toMatchObject({ type: 'booking.created', data: { video: { provider: 'google_meet', status: 'pending', join_url: null } } });

    await syncCalendar(await getDb(), calendarId, new Date());
    const joinUrl = (await call('GET', `/v1/bookings/${id}`, { key: admin.key })).body.video.join_url;
    expect(joinUrl).toMatch(/^https:\/\/meet\.google\.com\//);
    expect((await call('POST', `/v1/bookings/${id}/reschedule`, { key: admin.key, body: { start: day.at('11:00'), end: day.at('11:30'), reason: 'later' } })).status).toBe(200);
    expect((await call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: { reason: 'off' } })).status).toBe(200);

    const sent = await events(id);
    expect(sent.map((e) => e.type)).toEqual(['booking.created', 'booking.rescheduled', 'booking.cancelled']);
    expect(sent[1].data.video).toEqual({ provider: 'google_meet', status: 'ready', join_url: joinUrl, error: null });
    expect(sent[2].data.video).toEqual({ provider: 'google_meet', status: 'removed', join_url: null, error: null });
    // The notifications (include_own: these were the agent's own changes) carry the same object.
    const read = await notices(id);
    expect(read.map((n) => [n.kind, (n.data.video as { status: string }).status])).toEqual([
      ['booking.rescheduled', 'ready'],
      ['booking.cancelled', 'removed'],
    ]);
  });

  it('a booking without a link has no video in its events', async () => {
    const { owner } = await ownerWithGoogle('No Video');
    const plain = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('15:30'), end: day.at('16:00') } });
    expect(plain.status, plain.text).toBe(201);
    const [created] = await events(plain.body.booking_id);
    expect(created.type).toBe('booking.created');
    expect(created.data).not.toHaveProperty('video');
  });

  it("a hold's confirm takes a video: the answer and booking.confirmed carry it", async () => {
    const { owner, calendarId } = await ownerWithGoogle('Hold Video');
    const hold = async (at: string, to: string) => {
      const h = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'candidate', candidate: { start: day.at(at), end: day.at(to) } } });
      expect(h.status, h.text).toBe(200);
      return h.body.hold_id as string;
    };
    const first = await hold('13:00', '13:30');
    const meet = await call('POST', `/v1/bookings/${first}/confirm`, { key: admin.key, body: { start: day.at('13:00'), end: day.at('13:30'), video: { provider: 'google_meet' } } });
    expect(meet.status, meet.text).toBe(200);
    expect(meet.body.video).toMatchObject({ provider: 'google_meet', status: 'pending' });
    expect(meet.body.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^VIDEO_LINK_PENDING/)]));
    expect((await events(meet.body.booking_id))[0]).toMatchObject({ type: 'booking.confirmed', data: { hold_id: first, video: { provider: 'google_meet', status: 'pending' } } });
    await syncCalendar(await getDb(), calendarId, new Date());
    expect((await call('GET', `/v1/bookings/${meet.body.booking_id}`, { key: admin.key })).body.video).toMatchObject({ status: 'ready', join_url: expect.stringMatching(/^https:\/\/meet\.google\.com\//) });

    const second = await hold('14:00', '14:30');
    const bad = await call('POST', `/v1/bookings/${second}/confirm`, { key: admin.key, body: { start: day.at('14:00'), end: day.at('14:30'), video: { provider: 'link' } } });
    expect(bad.status, bad.text).toBe(400);
    const fixed = await call('POST', `/v1/bookings/${second}/confirm`, { key: admin.key, body: { start: day.at('14:00'), end: day.at('14:30'), video: { provider: 'link', url: 'https://zoom.example/j/8' } } });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.body.video).toEqual({ provider: 'link', status: 'ready', join_url: 'https://zoom.example/j/8', error: null });
    expect((await events(fixed.body.booking_id))[0].data.video).toEqual(fixed.body.video);
  });
});
