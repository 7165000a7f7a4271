import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bookingProposals, bookingVideoLinks } from '@/db/schema';
import { getDb } from '@/server/db';
import { connectGoogle } from '@/server/domain/calendars/calendarService';
import { pkcePair } from '@/server/domain/calendars/oauth';
import { syncCalendar } from '@/server/domain/calendars/sync';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startFakeGoogle, type FakeGoogle } from '../../helpers/fakeGoogle';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { call, nextWeekday, ownerCaller, publicOwner, type PublicSetup } from '../public/fixtures';

/**
 * docs/calendars.md "Video links" and docs/api.md "Approval policies": a booking an owner's
 * approval policy holds keeps the agent's `video` with the request (the 202 says so); the owner's
 * approval makes the booking with that link exactly as a direct booking with `video` (a fixed
 * link ready at once, a Meet link made by the owner's Google calendar at its sync), and the
 * agent's booking.approved carries it. A declined request makes no link. Against the loopback
 * Google fake.
 */
let google: FakeGoogle;
let admin: TestCustomer;
const REDIRECT = 'http://127.0.0.1/oauth/callback';
const day = nextWeekday('tue', 'UTC', 2);

allowLoopbackOutbound();
beforeAll(async () => {
  google = await startFakeGoogle();
  admin = await newCustomer();
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

/** An owner with a connected Google calendar whose approval policy holds every `external` booking. */
async function heldOwner(name: string): Promise<{ s: PublicSetup; calendarId: string }> {
  const s = await publicOwner(admin, { name });
  const { verifier, challenge } = pkcePair();
  const { calendar } = await connectGoogle(await getDb(), admin.customerId, s.ownerEmail, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
  const rule = await call('POST', '/v1/approval-policies', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external' } });
  expect(rule.status, rule.text).toBe(201);
  return { s, calendarId: calendar.id };
}

const booking = async (id: string) => (await call('GET', `/v1/bookings/${id}`, { key: admin.key })).body;
const linkRows = async (claimIds: string[]) => (await getDb()).select().from(bookingVideoLinks).where(inArray(bookingVideoLinks.claimId, claimIds));
const approvedNotice = async (bookingId: string) => {
  const res = await call('GET', '/v1/notifications?since=0', { key: admin.key });
  expect(res.status, res.text).toBe(200);
  return (res.body.notifications as { kind: string; data: Record<string, unknown> }[]).find((n) => n.kind === 'booking.approved' && n.data.booking_id === bookingId);
};

describe('video links on a booking held for approval', () => {
  it('POST /v1/bookings with google_meet: kept with the request, approved into a booking whose Meet link the calendar makes', async () => {
    const { s, calendarId } = await heldOwner('Hal Held');
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30'), title: 'Held Meet', video: { provider: 'google_meet' } } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'pending_approval', video: { provider: 'google_meet', url: null } });
    // Kept with the request; the hold itself has no link, and no provider is asked while it waits.
    const [proposal] = await (await getDb()).select().from(bookingProposals).where(eq(bookingProposals.id, res.body.proposal_id));
    expect(proposal.video).toEqual({ provider: 'google_meet' });
    expect(await linkRows([res.body.hold_id])).toEqual([]);

    const approved = await (await ownerCaller(s)).proposals.approve({ proposal_id: res.body.proposal_id });
    expect(approved.status).toBe('booked');
    const id = approved.booking_id!;
    const pending = await booking(id);
    expect(pending.video).toMatchObject({ provider: 'google_meet', status: 'pending', join_url: null, error: null });
    expect(pending.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^VIDEO_LINK_PENDING/)]));
    expect((await approvedNotice(id))?.data.video).toMatchObject({ provider: 'google_meet', status: 'pending' });
    const [row] = await linkRows([id]);
    expect(row).toMatchObject({ calendarId, status: 'pending', madeByClaimId: null });

    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    const ready = await booking(id);
    expect(ready.video).toMatchObject({ provider: 'google_meet', status: 'ready', error: null });
    expect(ready.video.join_url).toMatch(/^https:\/\/meet\.google\.com\//);
    const mine = [...google.events.values()].filter((e) => e.iCalUID.startsWith(id));
    expect(mine).toHaveLength(1);
    expect(mine[0].hangoutLink).toBe(ready.video.join_url);
  });

  it("a hold's confirm with a fixed link: kept with the request; the approved booking's link is ready at once", async () => {
    const { s } = await heldOwner('Flo Fixed');
    const zoom = 'https://zoom.example/j/5150';
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', hold_scope: 'candidate', candidate: { start: day.at('11:00'), end: day.at('11:30') } } });
    expect(hold.status, hold.text).toBe(200);
    const confirm = () => call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('11:00'), end: day.at('11:30'), video: { provider: 'link', url: zoom } } });
    const res = await confirm();
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'pending_approval', hold_id: hold.body.hold_id, video: { provider: 'link', url: zoom } });
    // Confirming again answers the same request, its video included.
    expect((await confirm()).body).toMatchObject({ proposal_id: res.body.proposal_id, video: { provider: 'link', url: zoom } });

    const approved = await (await ownerCaller(s)).proposals.approve({ proposal_id: res.body.proposal_id });
    const b = await booking(approved.booking_id!);
    expect(b).toMatchObject({ status: 'confirmed', hold_id: hold.body.hold_id });
    expect(b.video).toEqual({ provider: 'link', status: 'ready', join_url: zoom, error: null });
    expect((await approvedNotice(approved.booking_id!))?.data.video).toEqual(b.video);
  });

  it('a declined request makes no link', async () => {
    const { s, calendarId } = await heldOwner('Dee Declined');
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: day.at('14:00'), end: day.at('14:30'), video: { provider: 'google_meet' } } });
    expect(res.status, res.text).toBe(202);
    const declined = await (await ownerCaller(s)).proposals.decline({ proposal_id: res.body.proposal_id, reason: 'Not this week' });
    expect(declined).toMatchObject({ status: 'declined', booking_id: null });
    expect(await linkRows([res.body.hold_id])).toEqual([]);
    expect((await (await getDb()).select().from(bookingVideoLinks).where(eq(bookingVideoLinks.ownerId, s.ownerId))).length).toBe(0);
    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    expect([...google.events.values()].filter((e) => e.iCalUID.startsWith(res.body.hold_id))).toEqual([]);
  });
});
