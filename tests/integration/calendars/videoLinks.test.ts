import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bookingVideoLinks, claims } from '@/db/schema';
import { getDb } from '@/server/db';
import { connectGoogle, connectMicrosoft } from '@/server/domain/calendars/calendarService';
import { pkcePair } from '@/server/domain/calendars/oauth';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { dueCalendars, syncCalendar } from '@/server/domain/calendars/sync';
import { MAX_VIDEO_ATTEMPTS } from '@/server/domain/calendars/videoLinks';
import { proposalStatusPage } from '@/server/domain/publicScheduling/requester';
import { closeMailer } from '@/server/domain/email';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { startFakeGoogle, type FakeGoogle } from '../../helpers/fakeGoogle';
import { startFakeMicrosoft, type FakeMicrosoft } from '../../helpers/fakeMicrosoft';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { calendarPartOf, type TestSmtp } from '../../helpers/smtp';
import { call, confirm, meetingType, nextWeekday, ownerCaller, proposalRow, pub, publicOwner, submitFirst, useSmtp, type PublicSetup } from '../public/fixtures';

/**
 * docs/calendars.md "Video links": a meeting type's video setting gives each booking a link:
 * a fixed link at once; a Google Meet link (conferenceData.createRequest) or a Teams meeting
 * (isOnlineMeeting) made by the owner's calendar at its sync, against loopback fakes of those
 * endpoints. The link is kept when the meeting moves and removed when it is cancelled; a
 * refusal is an error on the link, never a lost booking; it shows in the booking answer, the
 * status page and the ICS.
 */
let google: FakeGoogle;
let ms: FakeMicrosoft;
let smtp: TestSmtp;
let admin: TestCustomer;
const REDIRECT = 'http://127.0.0.1/oauth/callback';
const day = nextWeekday('thu', 'UTC');

allowLoopbackOutbound();
beforeAll(async () => {
  [google, ms, smtp] = await Promise.all([startFakeGoogle(), startFakeMicrosoft(), useSmtp()]);
  admin = await newCustomer();
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

async function withGoogle(name: string): Promise<{ s: PublicSetup; calendarId: string }> {
  const s = await publicOwner(admin, { name });
  const { verifier, challenge } = pkcePair();
  const { calendar } = await connectGoogle(await getDb(), admin.customerId, s.ownerEmail, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
  return { s, calendarId: calendar.id };
}

/** Book the type's first free time on `day` (book instantly) and return the token and booking id. */
async function book(s: PublicSetup, slug: string) {
  const made = await submitFirst(s, slug, { day });
  expect((await confirm(made)).body).toEqual({ status: 'booked' });
  const row = await proposalRow(made.token);
  return { token: made.token, bookingId: row.bookingId!, slot: made.slot, requester: made.requester };
}
const booking = async (id: string) => (await call('GET', `/v1/bookings/${id}`, { key: admin.key })).body;
const ics = async (token: string) => (await pub('GET', `/public/booking-proposals/${token}/calendar.ics`)).text.replace(/\r\n /g, '');
const linkRow = async (id: string) => (await (await getDb()).select().from(bookingVideoLinks).where(eq(bookingVideoLinks.claimId, id)))[0];

describe('video links', () => {
  it('a fixed link is ready at once: booking answer, status page and ICS carry it', async () => {
    const s = await publicOwner(admin, { name: 'Fay Fixed' });
    const url = 'https://zoom.example/j/1234567890';
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'link', url } });
    const type = await call('GET', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key });
    expect(type.body.video).toEqual({ provider: 'link', url });
    const b = await book(s, slug);
    expect((await booking(b.bookingId)).video).toEqual({ provider: 'link', status: 'ready', join_url: url, error: null });
    expect((await proposalStatusPage(await getDb(), b.token, new Date())).video).toMatchObject({ status: 'ready', join_url: url });
    const file = await ics(b.token);
    expect(file).toContain(`LOCATION:${url}`);
    expect(file).toContain(`URL:${url}`);
    expect((await smtp.waitFor(b.requester, { subject: /accepted/ })).text).toContain(`Join: ${url}`);
    // The owner's week view: the booking's details carry the link.
    expect((await (await ownerCaller(s)).calendar.claim({ id: b.bookingId })).video).toMatchObject({ status: 'ready', join_url: url });
    expect(file).toMatch(new RegExp(`CONFERENCE;(?=[^\\n]*VALUE=URI)(?=[^\\n]*FEATURE=VIDEO)[^\\n]*:${url.replace(/[.?]/g, '\\$&')}`));
  });

  it('refuses a fixed link without url, and a url with google_meet', async () => {
    const s = await publicOwner(admin, { name: 'Val Valid' });
    for (const video of [{ provider: 'link' }, { provider: 'google_meet', url: 'https://meet.example/x' }, { provider: 'link', url: 'zoom:1' }]) {
      const res = await call('POST', `/v1/public-scheduling/links/${s.linkId}/meeting-types`, { key: admin.key, body: { slug: 'bad', title: 'Bad', duration_minutes: [30], meeting_class: 'external', video } });
      expect(res.status, JSON.stringify(video)).toBe(400);
    }
  });

  it('Google Meet: pending until the calendar syncs, then ready; kept when moved; removed when cancelled', async () => {
    const { s, calendarId } = await withGoogle('Gus Google');
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'google_meet' } });
    const b = await book(s, slug);
    const pending = await booking(b.bookingId);
    expect(pending.video).toMatchObject({ provider: 'google_meet', status: 'pending', join_url: null });
    expect(pending.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^VIDEO_LINK_PENDING/)]));
    // Just synced at connection, the calendar is due again at once: it has a link to make.
    expect(await dueCalendars(await getDb(), new Date(), 3_600_000, 100_000)).toContain(calendarId);
    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    const ready = await booking(b.bookingId);
    expect(ready.video).toMatchObject({ provider: 'google_meet', status: 'ready', error: null });
    const joinUrl: string = ready.video.join_url;
    expect(await dueCalendars(await getDb(), new Date(), 3_600_000, 100_000)).not.toContain(calendarId);
    expect(joinUrl).toMatch(/^https:\/\/meet\.google\.com\//);
    // One provider event for the booking, carrying the conference.
    const mine = [...google.events.values()].filter((e) => e.iCalUID.startsWith(b.bookingId));
    expect(mine).toHaveLength(1);
    expect(mine[0].hangoutLink).toBe(joinUrl);
    const page = await proposalStatusPage(await getDb(), b.token, new Date());
    expect(page.video).toMatchObject({ status: 'ready', join_url: joinUrl });
    const file = await ics(b.token);
    expect(file).toContain(`X-GOOGLE-CONFERENCE:${joinUrl}`);
    expect(file).toContain(`URL:${joinUrl}`);

    // Moved: the same event moves, the link stays.
    const moved = await call('POST', `/v1/bookings/${b.bookingId}/reschedule`, { key: admin.key, body: { start: day.at('16:00'), end: day.at('16:30') } });
    expect(moved.status, moved.text).toBe(200);
    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    expect(mine[0].start.dateTime).toBe(new Date(day.at('16:00')).toISOString());
    expect(mine[0].hangoutLink).toBe(joinUrl);
    expect((await booking(b.bookingId)).video.join_url).toBe(joinUrl);

    // Cancelled: the event (and its conference) is deleted, the link reads removed.
    expect((await call('POST', `/v1/bookings/${b.bookingId}/cancel`, { key: admin.key, body: {} })).status).toBe(200);
    expect((await booking(b.bookingId)).video).toEqual({ provider: 'google_meet', status: 'removed', join_url: null, error: null });
    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    expect(mine[0].status).toBe('cancelled');
  });

  it('a Meet link made after the invitation went out: the attendees get an update with the same UID, a higher SEQUENCE and the link', async () => {
    const { s, calendarId } = await withGoogle('Ines Invite');
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'google_meet' } });
    const b = await book(s, slug);
    // The invitation waits for a pending link at most 10 minutes; past that it goes without.
    const later = () => new Date(Date.now() + 11 * 60_000);
    await sendDueInvitations(await getDb(), later(), 100, admin.customerId);
    const first = calendarPartOf((await smtp.waitFor(b.requester, { subject: /^Invitation: / })).raw)!.replace(/\r\n /g, '');
    expect(first).not.toContain('CONFERENCE');
    const uid = /^UID:(.+)$/m.exec(first)![1].trim();
    const seq = Number(/^SEQUENCE:(\d+)/m.exec(first)![1]);

    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    const joinUrl: string = (await booking(b.bookingId)).video.join_url;
    expect(joinUrl).toMatch(/^https:\/\/meet\.google\.com\//);
    await sendDueInvitations(await getDb(), later(), 100, admin.customerId);
    const mail = await smtp.waitFor(b.requester, { subject: /^Updated: / });
    expect(mail.text).toContain(`Join (Google Meet): ${joinUrl}`);
    const update = calendarPartOf(mail.raw)!.replace(/\r\n /g, '');
    expect(/^UID:(.+)$/m.exec(update)![1].trim()).toBe(uid);
    expect(Number(/^SEQUENCE:(\d+)/m.exec(update)![1])).toBeGreaterThan(seq);
    expect(update).toContain(`X-GOOGLE-CONFERENCE:${joinUrl}`);
    expect(update).toMatch(/^METHOD:REQUEST/m);
    // Once: the next sync and sweep send nothing more.
    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    await sendDueInvitations(await getDb(), later(), 100, admin.customerId);
    expect(smtp.messages.filter((m) => m.to.includes(b.requester) && /^(Invitation|Updated): /.test(m.subject))).toHaveLength(2);
  });

  it('a refused Meet link is an error on the link, retried at each sync, then failed; the booking stands', async () => {
    const { s, calendarId } = await withGoogle('Fred Fail');
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'google_meet' } });
    google.conference.mode = 'failure';
    const b = await book(s, slug);
    expect((await syncCalendar(await getDb(), calendarId, new Date())).outcome).toBe('synced');
    expect(await linkRow(b.bookingId)).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringMatching(/createRequest failure/) });
    for (let i = 1; i < MAX_VIDEO_ATTEMPTS; i++) await syncCalendar(await getDb(), calendarId, new Date());
    const after = await booking(b.bookingId);
    expect(after.status).toBe('confirmed');
    expect(after.video).toMatchObject({ status: 'failed', join_url: null, error: expect.stringMatching(/createRequest failure/) });
    expect(after.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^VIDEO_LINK_FAILED/)]));
    const [row] = await (await getDb()).select().from(claims).where(eq(claims.id, b.bookingId));
    expect(row.status).toBe('confirmed');
  });

  it('a pending Meet request (statusCode pending) is asked again at the next sync and then ready', async () => {
    const { s, calendarId } = await withGoogle('Pam Pending');
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'google_meet' } });
    google.conference.mode = 'pending';
    const b = await book(s, slug);
    await syncCalendar(await getDb(), calendarId, new Date());
    expect(await linkRow(b.bookingId)).toMatchObject({ status: 'pending', attempts: 1 });
    await syncCalendar(await getDb(), calendarId, new Date());
    expect((await booking(b.bookingId)).video).toMatchObject({ status: 'ready', join_url: expect.stringMatching(/^https:\/\/meet\.google\.com\//) });
  });

  it('without a connected Google calendar the link waits with a clear error, and is made once one is connected', async () => {
    const s = await publicOwner(admin, { name: 'Nia None' });
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'google_meet' } });
    const b = await book(s, slug);
    expect((await booking(b.bookingId)).video).toMatchObject({ status: 'pending', error: expect.stringMatching(/No connected Google calendar/) });
    const { verifier, challenge } = pkcePair();
    await connectGoogle(await getDb(), admin.customerId, s.ownerEmail, { code: google.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT }, new Date());
    expect((await booking(b.bookingId)).video).toMatchObject({ status: 'ready', join_url: expect.stringMatching(/^https:\/\/meet\.google\.com\//) });
  });

  it('Microsoft Teams: the event is made an online meeting and its joinUrl kept', async () => {
    const s = await publicOwner(admin, { name: 'Tia Teams' });
    const { verifier, challenge } = pkcePair();
    const { calendar } = await connectMicrosoft(await getDb(), admin.customerId, s.ownerEmail, { code: ms.issueCode(challenge), codeVerifier: verifier, redirectUri: REDIRECT, makePrimary: true }, new Date());
    const slug = await meetingType(s, { duration_minutes: [30], book_instantly: true, video: { provider: 'microsoft_teams' } });
    const b = await book(s, slug);
    await syncCalendar(await getDb(), calendar.id, new Date());
    const v = (await booking(b.bookingId)).video;
    expect(v).toMatchObject({ provider: 'microsoft_teams', status: 'ready' });
    expect(v.join_url).toMatch(/^https:\/\/teams\.microsoft\.com\/l\/meetup-join\//);
    expect([...ms.events.values()].some((e) => e.onlineMeeting?.joinUrl === v.join_url)).toBe(true);
    expect(await ics(b.token)).toContain(`X-MICROSOFT-SKYPETEAMSMEETINGURL:${v.join_url}`);
  });

  it('an agent asks for a video link on its own booking (POST /v1/bookings video)', async () => {
    const { s, calendarId } = await withGoogle('Ada Agent');
    const made = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: day.at('14:00'), end: day.at('14:30'), video: { provider: 'google_meet' } } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.video).toMatchObject({ provider: 'google_meet', status: 'pending' });
    expect(made.body.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^VIDEO_LINK_PENDING/)]));
    await syncCalendar(await getDb(), calendarId, new Date());
    expect((await booking(made.body.booking_id)).video).toMatchObject({ status: 'ready', join_url: expect.stringMatching(/^https:\/\/meet\.google\.com\//) });
    const fixed = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: day.at('14:30'), end: day.at('15:00'), video: { provider: 'link', url: 'https://zoom.example/j/42' } } });
    expect(fixed.body.video).toEqual({ provider: 'link', status: 'ready', join_url: 'https://zoom.example/j/42', error: null });
  });
});
