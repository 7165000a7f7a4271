import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bookingVideoLinks, webhookDeliveries } from '@/db/schema';
import { getDb } from '@/server/db';
import { connectGoogle, connectMicrosoft } from '@/server/domain/calendars/calendarService';
import { pkcePair } from '@/server/domain/calendars/oauth';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { dueCalendars, syncCalendar } from '@/server/domain/calendars/sync';
import { closeMailer } from '@/server/domain/email';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { startFakeGoogle, type FakeGoogle } from '../../helpers/fakeGoogle';
import { startFakeMicrosoft, type FakeMicrosoft } from '../../helpers/fakeMicrosoft';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { calendarPartOf, type TestSmtp } from '../../helpers/smtp';
import { call, confirm, meetingType, nextWeekday, proposalRow, publicOwner, submitFirst, useSmtp } from '../public/fixtures';

/**
 * docs/calendars.md "Video links": a group booking (`owner_emails`, or a group hold's confirm)
 * takes `video`. A fixed link goes on every member's booking; a Meet or Teams link is made once,
 * by the organizer's (first-listed owner's) connected calendar, and every member's booking shows
 * that same link (answers, webhook events, invitations); the group's cancel removes it once.
 * Against the loopback Google and Microsoft fakes.
 */
let google: FakeGoogle;
let ms: FakeMicrosoft;
let smtp: TestSmtp;
let admin: TestCustomer;
let endpointId: string;
const REDIRECT = 'http://127.0.0.1/oauth/callback';
const day = nextWeekday('wed', 'UTC', 2);

allowLoopbackOutbound();
beforeAll(async () => {
  [google, ms, smtp] = await Promise.all([startFakeGoogle(), startFakeMicrosoft(), useSmtp()]);
  admin = await newCustomer();
  const hook = await call('POST', '/v1/webhooks', { key: admin.key, body: { url: 'http://127.0.0.1:9/group-video', events: ['booking.created', 'booking.confirmed', 'booking.cancelled'], include_own: true } });
  expect(hook.status, hook.text).toBe(201);
  endpointId = hook.body.id;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await Promise.all([google?.close(), ms?.close(), smtp?.close()]);
});
beforeEach(() => {
  vi.stubEnv('GOOGLE_CLIENT_ID', 'client-1');
  vi.stubEnv('GOOGLE_CLIENT_SECRET', 'secret-1');
  vi.stubEnv('GOOGLE_TOKEN_URL', `${google.url}/token`);
  vi.stubEnv('GOOGLE_CALENDAR_API', `${google.url}/calendar/v3`);
  vi.stubEnv('MICROSOFT_CLIENT_ID', 'ms-client');
  vi.stubEnv('MICROSOFT_CLIENT_SECRET', 'ms-secret');
  vi.stubEnv('MICROSOFT_TOKEN_URL', `${ms.url}/token`);
  vi.stubEnv('MICROSOFT_GRAPH_API', `${ms.url}/v1.0`);
  vi.stubEnv('CALENDAR_FRESH_SECONDS', '3600');
  google.conference.mode = 'success';
});

type Owner = { email: string; ownerId: string; calendarId: string | null };
async function owner(name: string, provider?: 'google' | 'microsoft'): Promise<Owner> {
  const s = await publicOwner(admin, { name });
  if (!provider) return { email: s.ownerEmail, ownerId: s.ownerId, calendarId: null };
  const { verifier, challenge } = pkcePair();
  const connect = provider === 'google' ? connectGoogle : connectMicrosoft;
  const code = provider === 'google' ? google.issueCode(challenge) : ms.issueCode(challenge);
  const { calendar } = await connect(await getDb(), admin.customerId, s.ownerEmail, { code, codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
  return { email: s.ownerEmail, ownerId: s.ownerId, calendarId: calendar.id };
}

const booking = async (id: string) => (await call('GET', `/v1/bookings/${id}`, { key: admin.key })).body;
const memberIds = (b: { members: { booking_id: string }[] }) => b.members.map((m) => m.booking_id);
const videos = async (ids: string[]) => Promise.all(ids.map(async (id) => (await booking(id)).video));
const linkRows = async (ids: string[]) => new Map((await (await getDb()).select().from(bookingVideoLinks).where(inArray(bookingVideoLinks.claimId, ids))).map((r) => [r.claimId, r]));
const events = async (ids: string[]) =>
  (await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)))
    .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
    .filter((e) => ids.includes(e.data.booking_id as string));
/** The invitation sweep past the 10 minutes a new booking's invitation waits for a pending link. */
const invite = async () => sendDueInvitations(await getDb(), new Date(Date.now() + 11 * 60_000), 100, admin.customerId);
const mailsTo = (to: string, subject: RegExp) => smtp.messages.filter((m) => m.to.includes(to) && subject.test(m.subject));

describe('video links on group bookings', () => {
  it('google_meet with owner_emails: made once by the organizer, the same link on every member; removed once on cancel', async () => {
    // Made in reverse: the organizer's id is the highest, so its booking is recorded last (owner-id order).
    const plain = await owner('Pat Plain');
    const other = await owner('Gil Google', 'google');
    const org = await owner('Olga Organizer', 'google');
    const guest = uniqueEmail('guest');
    const made = await call('POST', '/v1/bookings', {
      key: admin.key,
      body: { owner_emails: [org.email, other.email, plain.email], meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30'), title: 'Trio', attendees: [{ email: guest }], video: { provider: 'google_meet' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.owner_email).toBe(org.email);
    expect(made.body.video).toMatchObject({ provider: 'google_meet', status: 'pending', join_url: null });
    const ids = memberIds(made.body);
    const orgId = made.body.booking_id as string;
    expect(ids).toHaveLength(3);
    for (const v of await videos(ids)) expect(v).toMatchObject({ provider: 'google_meet', status: 'pending', join_url: null, error: null });
    // One link to make, named to the organizer's calendar; the others show it and are never made.
    const rows = await linkRows(ids);
    expect(rows.get(orgId)).toMatchObject({ calendarId: org.calendarId, madeByClaimId: null });
    for (const id of ids.filter((i) => i !== orgId)) expect(rows.get(id)).toMatchObject({ calendarId: null, madeByClaimId: orgId, status: 'pending' });
    const due = await dueCalendars(await getDb(), new Date(), 3_600_000, 100_000);
    expect(due).toContain(org.calendarId);
    expect(due).not.toContain(other.calendarId);
    expect((await events(ids)).map((e) => [e.type, (e.data.video as { status: string }).status])).toEqual(ids.map(() => ['booking.created', 'pending']));
    // The invitations went out before the link was made (past the wait).
    await invite();
    expect(mailsTo(guest, /^Invitation: /)).toHaveLength(3);

    expect((await syncCalendar(await getDb(), org.calendarId!, new Date())).outcome).toBe('synced');
    expect((await syncCalendar(await getDb(), other.calendarId!, new Date())).outcome).toBe('synced');
    const joinUrl: string = (await booking(orgId)).video.join_url;
    expect(joinUrl).toMatch(/^https:\/\/meet\.google\.com\//);
    expect(await videos(ids)).toEqual(ids.map(() => ({ provider: 'google_meet', status: 'ready', join_url: joinUrl, error: null })));
    // Made once: one conference, on the organizer's event; the other host's event has none.
    expect([...google.events.values()].filter((e) => e.hangoutLink)).toHaveLength(1);
    expect([...google.events.values()].filter((e) => e.hangoutLink === joinUrl).map((e) => e.iCalUID.split('@')[0])).toEqual([orgId]);
    // Every member's attendees hear of the link: an update carrying it, per member booking.
    await invite();
    const updates = mailsTo(guest, /^Updated: /);
    expect(updates).toHaveLength(3);
    for (const m of updates) expect(calendarPartOf(m.raw)!.replace(/\r\n /g, '')).toContain(`X-GOOGLE-CONFERENCE:${joinUrl}`);

    // Cancel of the group: every member reads removed; the organizer's event (and conference) goes once.
    const cancelled = await call('POST', `/v1/bookings/${made.body.group_id}/cancel`, { key: admin.key, body: { reason: 'off' } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await videos(ids)).toEqual(ids.map(() => ({ provider: 'google_meet', status: 'removed', join_url: null, error: null })));
    expect((await events(ids)).filter((e) => e.type === 'booking.cancelled').map((e) => (e.data.video as { status: string }).status)).toEqual(ids.map(() => 'removed'));
    expect((await syncCalendar(await getDb(), org.calendarId!, new Date())).outcome).toBe('synced');
    const meet = [...google.events.values()].filter((e) => e.hangoutLink === joinUrl);
    expect(meet.map((e) => e.status)).toEqual(['cancelled']);
  });

  it('a fixed link goes on every member of a group booking', async () => {
    const [a, b] = [await owner('Fia Fixed'), await owner('Fen Fixed')];
    const zoom = 'https://zoom.example/j/2020';
    const made = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_emails: [a.email, b.email], meeting_class: 'external', start: day.at('11:00'), end: day.at('11:30'), video: { provider: 'link', url: zoom } } });
    expect(made.status, made.text).toBe(201);
    const ready = { provider: 'link', status: 'ready', join_url: zoom, error: null };
    expect(made.body.video).toEqual(ready);
    expect(await videos(memberIds(made.body))).toEqual([ready, ready]);
    expect((await events(memberIds(made.body))).map((e) => e.data.video)).toEqual([ready, ready]);
  });

  it("a group hold's confirm with microsoft_teams: made by the calendar of the hold_id's owner (first named), shown on every member", async () => {
    // The first named is not the first in owner-id order.
    const second = await owner('Tess Teams', 'microsoft');
    const first = await owner('Tom Teams', 'microsoft');
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_emails: [first.email, second.email], meeting_class: 'external', hold_scope: 'candidate', candidate: { start: day.at('13:00'), end: day.at('13:30') } } });
    expect(hold.status, hold.text).toBe(200);
    const confirmed = await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('13:00'), end: day.at('13:30'), video: { provider: 'microsoft_teams' } } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const ids = memberIds(confirmed.body);
    const rows = [...(await linkRows(ids)).values()];
    const maker = rows.find((r) => !r.madeByClaimId)!;
    expect(maker).toMatchObject({ ownerId: first.ownerId, calendarId: first.calendarId, provider: 'microsoft_teams' });
    expect(rows.filter((r) => r.madeByClaimId === maker.claimId)).toHaveLength(1);
    expect((await events(ids)).map((e) => [e.type, (e.data.video as { provider: string }).provider])).toEqual(ids.map(() => ['booking.confirmed', 'microsoft_teams']));

    await syncCalendar(await getDb(), second.calendarId!, new Date());
    await syncCalendar(await getDb(), first.calendarId!, new Date());
    const [v1, v2] = await videos(ids);
    expect(v1).toMatchObject({ provider: 'microsoft_teams', status: 'ready' });
    expect(v1.join_url).toMatch(/^https:\/\/teams\.microsoft\.com\/l\/meetup-join\//);
    expect(v2).toEqual(v1);
    expect([...ms.events.values()].filter((e) => e.onlineMeeting)).toHaveLength(1);
  });

  it("an organizer without a Google calendar: every member's link waits with the single booking's error, made once the organizer connects one", async () => {
    const other = await owner('Gus Google', 'google');
    const lead = await owner('Lou Lead');
    const made = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_emails: [lead.email, other.email], meeting_class: 'external', start: day.at('15:00'), end: day.at('15:30'), video: { provider: 'google_meet' } } });
    expect(made.status, made.text).toBe(201);
    const ids = memberIds(made.body);
    for (const v of await videos(ids)) expect(v).toMatchObject({ status: 'pending', join_url: null, error: expect.stringMatching(/^No connected Google calendar to make the Google Meet link with/) });
    expect(made.body.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^VIDEO_LINK_PENDING/)]));
    // The other host's Google calendar does not make it.
    await syncCalendar(await getDb(), other.calendarId!, new Date());
    for (const v of await videos(ids)) expect(v.status).toBe('pending');
    const { verifier, challenge } = pkcePair();
    await connectGoogle(await getDb(), admin.customerId, lead.email, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT }, new Date());
    const [v1, v2] = await videos(ids);
    expect(v1).toMatchObject({ status: 'ready', join_url: expect.stringMatching(/^https:\/\/meet\.google\.com\//), error: null });
    expect(v2).toEqual(v1);
  });

  it("a collective meeting type's Meet link: made once by the lead host's calendar, shown on every host's booking", async () => {
    const other = await owner('Cal Cohost', 'google');
    const s = await publicOwner(admin, { name: 'Cora Collective' });
    const { verifier, challenge } = pkcePair();
    const { calendar } = await connectGoogle(await getDb(), admin.customerId, s.ownerEmail, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, host_mode: 'collective', host_emails: [s.ownerEmail, other.email], video: { provider: 'google_meet' } });
    const made = await submitFirst(s, slug, { day: nextWeekday('thu', 'UTC', 2) });
    expect((await confirm(made)).body).toEqual({ status: 'booked' });
    const lead = await booking((await proposalRow(made.token)).bookingId!);
    const ids = memberIds(lead);
    expect(ids).toHaveLength(2);
    expect((await linkRows(ids)).get(lead.booking_id)).toMatchObject({ calendarId: calendar.id, madeByClaimId: null });
    await syncCalendar(await getDb(), other.calendarId!, new Date());
    await syncCalendar(await getDb(), calendar.id, new Date());
    const [v1, v2] = await videos(ids);
    expect(v1).toMatchObject({ provider: 'google_meet', status: 'ready', join_url: expect.stringMatching(/^https:\/\/meet\.google\.com\//) });
    expect(v2).toEqual(v1);
    expect([...google.events.values()].filter((e) => e.hangoutLink === v1.join_url)).toHaveLength(1);
  });
});
