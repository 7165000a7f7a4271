import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, uniqueEmail } from '../../helpers/app';
import { linksIn, type TestSmtp } from '../../helpers/smtp';
import { closeMailer } from '@/server/domain/email';
import { call, expectNoLeaks, meetingType, nextWeekday, ownerCaller, pub, pubUrl, publicOwner, useSmtp } from './fixtures';

let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await useSmtp();
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

describe('the full public journey', () => {
  it('link and type over /v1 -> submit -> mail -> confirm page -> owner approves -> booked -> withdraw refused', async () => {
    // 1. the customer sets up a link and a meeting type through the REST API
    const s = await publicOwner(await newCustomer(), { name: 'Ada Lovelace', title: 'Talk to Ada' });
    const slug = await meetingType(s, { slug: 'intro', title: 'Intro call', duration_minutes: [30] });

    // 2. a requester opens the link and picks a suggested time
    const page = await pub('GET', `/public/schedules/${s.alias}`);
    expect(page.status, page.text).toBe(200);
    expect(page.body).toEqual({ title: 'Talk to Ada', owner_name: 'Ada Lovelace', meeting_types: [{ slug: 'intro', title: 'Intro call', duration_minutes: [30] }] });
    const day = nextWeekday('thu', 'UTC');
    const sugg = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${day.at('09:00')}&to=${day.at('12:00')}`);
    expect(sugg.status, sugg.text).toBe(200);
    expect(sugg.body.suggested_times[0]).toEqual({ start: day.at('09:00'), end: day.at('09:30'), start_local: day.at('09:00').replace('.000Z', '+00:00'), end_local: day.at('09:30').replace('.000Z', '+00:00') });
    const slot = sugg.body.suggested_times[1];

    const requester = uniqueEmail('journey');
    const created = await pub('POST', `/public/schedules/${s.linkId}/booking-proposals`, {
      body: { requester_contact: { email: requester, name: 'Grace' }, attendees: [{ email: uniqueEmail('colleague') }], public_meeting_type: slug, duration_minutes: 30, requested_window: slot, message: 'Hello!' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.status).toBe('pending_requester_verification');
    expect(created.body.status_url).toMatch(/^http:\/\/scheduler\.test\/public\/booking-proposals\/pt_[A-Za-z0-9_-]{43}$/);
    expect(created.body.contact_verification_url).toMatch(/^http:\/\/scheduler\.test\/public\/contact-verifications\/cv_[A-Za-z0-9_-]{43}\/confirm$/);
    expect((await pubUrl('GET', created.body.status_url)).body.status).toBe('pending_requester_verification');

    // 3. the verification mail arrives over SMTP; follow its link
    const mail = await smtp.waitFor(requester);
    expect(mail.subject).toMatch(/confirm your email/i);
    const links = linksIn(mail);
    expect(links).toContain(created.body.contact_verification_url);
    expect(links).toContain(created.body.status_url);
    const confirmUrl = links.find((l) => l.includes('/contact-verifications/'))!;
    const html = await pubUrl('GET', confirmUrl);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.text).toContain('<form method="post" id="confirm">');
    expect(html.text).toContain('Ada Lovelace');
    const confirmed = await pubUrl('POST', confirmUrl, { headers: { accept: 'application/json' } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toEqual({ status: 'pending_review' });
    expect((await pubUrl('GET', created.body.status_url)).body.status).toBe('pending_review');

    // 4. the owner approves in the dashboard
    const owner = await ownerCaller(s);
    const pending = await owner.proposals.listPending();
    expect(pending.proposals).toHaveLength(1);
    expect(pending.proposals[0]).toMatchObject({ origin: 'public', requester: { email: requester, name: 'Grace' }, requested_window: { start: slot.start, end: slot.end }, message: 'Hello!', meeting_type: { slug: 'intro' } });
    const approved = await owner.proposals.approve({ proposal_id: pending.proposals[0].proposal_id });
    expect(approved).toMatchObject({ status: 'booked', start: slot.start, end: slot.end });
    const booking = await call('GET', `/v1/bookings/${approved.booking_id}`, { key: s.admin.key });
    expect(booking.body).toMatchObject({ status: 'confirmed', start: slot.start, title: 'Intro call with Grace' }); // the approval keeps the proposal's title (docs/dashboard.md)
    const outcome = await smtp.waitFor(requester, { subject: /accepted/i });
    expect(outcome.text).toContain('booked');

    // 5. the requester sees booked, and cannot withdraw it
    const status = await pubUrl('GET', created.body.status_url);
    expect(status.body.status).toBe('booked');
    expect(status.body.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const withdraw = await pubUrl('POST', `${created.body.status_url}/withdraw`);
    expectEnvelope(withdraw, 409, 'not_pending');
    // and the time is gone from the suggestions
    const after = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${day.at('09:00')}&to=${day.at('12:00')}`);
    expect(after.body.suggested_times.map((t: { start: string }) => t.start)).not.toContain(slot.start);
  });
});
