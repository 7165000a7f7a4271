import ICAL from 'ical.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, claims, notifications } from '@/db/schema';
import { getDb, type Db } from '@/server/db';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { closeMailer } from '@/server/domain/email';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { attachmentOf, calendarPartOf, linksIn, type TestSmtp } from '../../helpers/smtp';
import { call, expectNoLeaks, freshIp, meetingType, nextWeekday, ownerCaller, pub, pubUrl, publicOwner, recorded, useSmtp, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "Status page" and "Mail": a requester's booked
 * meeting on the status page (owner, time, location, calendar file, cancel),
 * the confirmation page's link to the status page, and every mail in its
 * reader's zone with the zone named (requester: the zone of their booking
 * pages; owner: theirs; other attendees: the owner's).
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let db: Db;
const ZOOM = 'https://video.example/j/123';
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  db = await getDb();
  s = await publicOwner(admin, { name: 'Bea Berlin', timeZone: 'Europe/Berlin' });
  await meetingType(s, { slug: 'intro', title: 'Intro call', location: ZOOM, description: 'A first talk.' });
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

function browser() {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test' });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  const r = createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db, now: () => new Date() }).requester;
  const record = <T>(name: string, p: Promise<T>): Promise<T> =>
    p.then((v) => {
      recorded.push({ method: 'TRPC', path: name, status: 200, contentType: 'application/json', text: JSON.stringify(v) });
      return v;
    });
  return {
    submit: (input: Parameters<typeof r.submit>[0]) => record('submit', r.submit(input)),
    status: (token: string) => record('status', r.status({ token })),
    cancelMeeting: (token: string, reason?: string) => record('cancelMeeting', r.cancelMeeting({ token, ...(reason ? { reason } : {}) })),
    meetingType: (link: string, slug: string) => record('meetingType', r.meetingType({ link, slug })),
  };
}

// A Wednesday in December: New York is UTC-5 (EST), Berlin UTC+1 (CET).
const day = nextWeekday('wed', 'Europe/Berlin');
const at = (hhmm: string, end: string) => ({ start: day.at(hhmm), end: day.at(end) });
const slot = at('10:30', '11:00');
const cause = (code: string) => ({ cause: { code } });

/** Submit from a page in New York, confirm through the mailed link; the status token, verification URL and mails. */
async function requestAndConfirm(requester: string, guest: string, when = slot) {
  const out = await browser().submit({
    link: s.alias,
    time_zone: 'America/New_York',
    requester_contact: { email: requester, name: 'Nora York' },
    attendees: [{ email: guest }],
    public_meeting_type: 'intro',
    duration_minutes: 30,
    requested_window: when,
  });
  const token = new URL(out.status_url).pathname.split('/').pop()!;
  const mail = await smtp.waitFor(requester, { subject: /^Confirm your email/ });
  const verify = linksIn(mail).find((l) => l.includes('/contact-verifications/'))!;
  return { token, mail, verify, statusUrl: out.status_url };
}


/** "4:30 – 5:00 AM EST (America/New_York)": the span as mail names it, whatever the season (both ends in the same half of the day). */
function spanIn(w: { start: string; end: string }, tz: string): string {
  const parts = (d: string) => new Intl.DateTimeFormat('en-US', { timeZone: tz, hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).formatToParts(new Date(d));
  const clock = (d: string) => parts(d).filter((p) => p.type === 'hour' || p.type === 'minute').map((p) => p.value).join(':');
  const of = (type: string) => parts(w.start).find((p) => p.type === type)!.value;
  return `${clock(w.start)} – ${clock(w.end)} ${of('dayPeriod')} ${of('timeZoneName')} (${tz})`;
}

describe('a booked public meeting', () => {
  it('mails the requester in their zone, links the status page from the confirmation page, and shows the booked meeting', async () => {
    const requester = uniqueEmail('nora');
    const guest = uniqueEmail('guest');
    const { token, mail, verify, statusUrl } = await requestAndConfirm(requester, guest);
    // The verification mail: New York time, zone named; never UTC.
    // 10:30 in Berlin is 4:30 in New York.
    expect(spanIn(slot, 'America/New_York')).toMatch(/^4:30 – 5:00 AM E[SD]T/);
    expect(mail.text).toContain(spanIn(slot, 'America/New_York'));
    expect(mail.text).not.toMatch(/GMT|UTC|\d{4}-\d{2}-\d{2}T/);

    // The confirmation page links the status page, before (hidden until confirmed) and after confirming.
    const page = await pubUrl('GET', verify);
    const statusPath = new URL(statusUrl).pathname;
    expect(page.text).toContain(`<p id="next" hidden><a href="${statusPath}">See your request's status</a>`);
    expect((await pubUrl('POST', verify, { headers: { accept: 'application/json' } })).status).toBe(200);
    const again = await pubUrl('GET', verify);
    expect(again.text).toContain('Email already confirmed');
    expect(again.text).toContain(`<a href="${statusPath}">See your request&#39;s status</a>`);

    // Waiting for review: no location yet.
    expect(await browser().status(token)).toMatchObject({ status: 'pending_review', location: null, cancellable: false, meeting_cancelled: false, owner_name: 'Bea Berlin' });

    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === requester)!;
    // Item 10: the owner is told a request waits for review: one line in their zone, and the review page's link.
    const announced = await smtp.waitFor(s.ownerEmail, { subject: /^New meeting request from Nora York$/ });
    expect(announced.text).toContain(`Nora York asks for "Intro call" on `);
    expect(announced.text).toContain(spanIn(slot, 'Europe/Berlin'));
    expect(linksIn(announced)).toEqual([`http://scheduler.test/dashboard/proposals/${pending.proposal_id}`]);
    await owner.proposals.approve({ proposal_id: pending.proposal_id });
    const accepted = await smtp.waitFor(requester, { subject: /accepted/ });
    expect(accepted.text).toContain(spanIn(slot, 'America/New_York'));
    expect(accepted.text).toContain(`Where: ${ZOOM}`);

    expect(await browser().status(token)).toEqual({
      status: 'booked',
      updated_at: expect.any(String),
      title: 'Intro call',
      owner_name: 'Bea Berlin',
      start: slot.start,
      end: slot.end,
      withdrawable: false,
      decline_reason: null,
      location: ZOOM,
      video: null,
      cancellable: true,
      meeting_cancelled: false,
      movable: true,
      move_request: null,
      books_instantly: false,
      weeks: null,
    });

    // "Add to calendar": the booking's own UID, published, with the location and an absolute start.
    const file = await pub('GET', `/public/booking-proposals/${token}/calendar.ics`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/calendar/);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="meeting.ics"');
    const cal = new ICAL.Component(ICAL.parse(file.text));
    const ev = cal.getFirstSubcomponent('vevent')!;
    expect(cal.getFirstPropertyValue('method')).toBe('PUBLISH');
    // No internal id and no owner email (the leak scan reads this file too): an opaque UID, no ORGANIZER/ATTENDEE.
    expect(ev.getFirstPropertyValue('uid')).toMatch(/^[0-9a-f]{40}@agent-scheduler$/);
    expect(ev.getFirstPropertyValue('summary')).toBe('Intro call with Bea Berlin');
    expect(ev.getFirstPropertyValue('location')).toBe(ZOOM);
    expect(ev.getFirstPropertyValue('description')).toBe('A first talk.');
    expect((ev.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe(slot.start);
    expect(ev.getFirstProperty('organizer')).toBeNull();
    expect((await pub('GET', `/public/booking-proposals/${token}/calendar.ics`)).text.match(/UID:.*/)?.[0]).toBe(file.text.match(/UID:.*/)?.[0]);
    expect((await pub('GET', '/public/booking-proposals/pt_unknown/calendar.ics')).status).toBe(404);

    // Invitations: each attendee in their zone (the requester New York, the guest the owner's Berlin), ICS attached and inline.
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const inv = await smtp.waitFor(requester, { subject: /^Invitation: Intro call/ });
    expect(inv.text).toContain('When: Wednesday, ');
    expect(inv.text).toContain(spanIn(slot, 'America/New_York'));
    expect(inv.text).toContain(`Where: ${ZOOM}`);
    const guestInv = await smtp.waitFor(guest, { subject: /^Invitation: Intro call/ });
    expect(guestInv.text).toContain(spanIn(slot, 'Europe/Berlin'));
    expect(spanIn(slot, 'Europe/Berlin')).toMatch(/^10:30 – 11:00 AM GMT\+[12] \(Europe\/Berlin\)$/);
    const attached = attachmentOf(inv.raw, 'invite.ics');
    expect(attached?.contentType).toMatch(/^application\/ics; method=REQUEST/);
    const icsParts = [attached!.body, calendarPartOf(inv.raw)!].map((t) => new ICAL.Component(ICAL.parse(t)));
    for (const c of icsParts) {
      const e = c.getFirstSubcomponent('vevent')!;
      const start = e.getFirstPropertyValue('dtstart') as ICAL.Time;
      expect({
        method: c.getFirstPropertyValue('method'),
        uid: e.getFirstPropertyValue('uid'),
        sequence: e.getFirstPropertyValue('sequence'),
        organizer: e.getFirstPropertyValue('organizer'),
        attendees: e.getAllProperties('attendee').map((p) => p.getFirstValue()).sort(),
        start: start.toJSDate().toISOString(),
        zone: start.zone?.tzid,
        location: e.getFirstPropertyValue('location'),
      }).toEqual({
        method: 'REQUEST',
        uid: expect.stringMatching(/^[0-9a-f-]{36}@agent-scheduler$/),
        sequence: 0,
        organizer: `mailto:${s.ownerEmail}`,
        attendees: [`mailto:${requester}`, `mailto:${guest}`].sort(),
        start: slot.start,
        zone: 'UTC',
        location: ZOOM,
      });
    }
  });

  it('the requester cancels with a reason: the time is free, the owner is told in their zone, attendees get the cancellation', async () => {
    const requester = uniqueEmail('cancel');
    const guest = uniqueEmail('cguest');
    const slot = at('13:00', '13:30');
    const { token, verify } = await requestAndConfirm(requester, guest, slot);
    expect((await pubUrl('POST', verify, { headers: { accept: 'application/json' } })).status).toBe(200);
    // Not booked yet: nothing to cancel.
    await expect(browser().cancelMeeting(token)).rejects.toMatchObject(cause('not_cancellable'));
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === requester)!;
    const booked = await owner.proposals.approve({ proposal_id: pending.proposal_id });
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    await smtp.waitFor(guest, { subject: /^Invitation/ });

    const after = await browser().cancelMeeting(token, 'Something came up');
    expect(after).toMatchObject({ status: 'cancelled', meeting_cancelled: true, cancellable: false, location: null, withdrawable: false });
    expect((await pub('GET', `/public/booking-proposals/${token}`)).body.status).toBe('cancelled');
    await expect(browser().cancelMeeting(token)).rejects.toMatchObject(cause('not_cancellable'));
    expect((await pub('GET', `/public/booking-proposals/${token}/calendar.ics`)).status).toBe(404);

    const [claim] = await db.select().from(claims).where(eq(claims.id, booked.booking_id!));
    expect(claim).toMatchObject({ status: 'cancelled', statusReason: 'Something came up' });
    const audit = await db.select().from(auditLog).where(and(eq(auditLog.bookingId, booked.booking_id!), eq(auditLog.action, 'booking.cancel')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ agentId: null, outcome: 'accept', reason: 'Something came up' });
    // A public booking has no agent to notify.
    expect(await db.select().from(notifications).where(eq(notifications.customerId, admin.customerId))).not.toContainEqual(expect.objectContaining({ kind: 'booking.cancelled' }));

    // The owner's mail: their zone, named, with the reason.
    const told = await smtp.waitFor(s.ownerEmail, { subject: /^Cancelled by Nora York: Intro call/ });
    expect(told.text).toContain(spanIn(slot, 'Europe/Berlin'));
    expect(told.text).toContain('Their reason: Something came up');

    // The time is offered again.
    const q = `from=${encodeURIComponent(day.at('09:00'))}&to=${encodeURIComponent(day.at('17:00'))}&duration_minutes=30`;
    const times = await pub('GET', `/public/schedules/${s.alias}/meeting-types/intro/suggested-times?${q}`);
    expect(times.body.suggested_times.map((t: { start: string }) => t.start)).toContain(slot.start);

    // Attendees get the CANCEL of their invitation.
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const c = await smtp.waitFor(guest, { subject: /^Cancelled: Intro call/ });
    const cal = new ICAL.Component(ICAL.parse(calendarPartOf(c.raw)!));
    expect(cal.getFirstPropertyValue('method')).toBe('CANCEL');
    expect(cal.getFirstSubcomponent('vevent')!.getFirstPropertyValue('sequence')).toBe(1);
  });

  it('an agent proposal is announced to the owner with its review link; an unverified request is not', async () => {
    const before = smtp.messages.filter((m) => m.to.includes(s.ownerEmail)).length;
    const unverified = await requestAndConfirm(uniqueEmail('quiet'), uniqueEmail('g'), at('15:00', '15:30'));
    expect(unverified.token).toMatch(/^pt_/);
    const created = await call('POST', '/v1/booking-proposals', {
      key: admin.key,
      body: { owner_email: s.ownerEmail, meeting_class: 'external', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('17:00') }, attendees: [] },
    });
    expect(created.status, created.text).toBe(201);
    const mail = await smtp.waitFor(s.ownerEmail, { subject: /^New meeting request from The agent/ });
    expect(linksIn(mail)).toEqual([`http://scheduler.test/dashboard/proposals/${created.body.proposal_id}`]);
    // Only the agent's proposal was announced: the unconfirmed request waits for its requester.
    expect(smtp.messages.filter((m) => m.to.includes(s.ownerEmail)).slice(before).map((m) => m.subject)).toEqual([mail.subject]);
  });

  it('a booked meeting the owner cancelled reads as cancelled and offers nothing', async () => {
    const requester = uniqueEmail('ownercx');
    const { token, verify } = await requestAndConfirm(requester, uniqueEmail('g'), at('14:00', '14:30'));
    await pubUrl('POST', verify, { headers: { accept: 'application/json' } });
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === requester)!;
    const booked = await owner.proposals.approve({ proposal_id: pending.proposal_id });
    await db.update(claims).set({ status: 'cancelled' }).where(eq(claims.id, booked.booking_id!));
    expect(await browser().status(token)).toMatchObject({ status: 'booked', meeting_cancelled: true, cancellable: false, location: null });
    await expect(browser().cancelMeeting(token)).rejects.toMatchObject(cause('not_cancellable'));
  });
});
