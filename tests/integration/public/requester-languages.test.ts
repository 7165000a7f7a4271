import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, type Db } from '@/server/db';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { closeMailer } from '@/server/domain/email';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { attachmentOf, linksIn, type TestSmtp } from '../../helpers/smtp';
import { freshIp, meetingType, nextWeekday, ownerCaller, pub, pubUrl, publicOwner, useSmtp, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "Languages": a requester's mails and the text of their invitation
 * are in the language of their request (booking_proposals.requester_locale, from the page they
 * submitted on), times written by Intl in that language and their zone; the owner's mails and the
 * other attendees' invitations stay English.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let db: Db;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  db = await getDb();
  s = await publicOwner(admin, { name: 'Bea Berlin', timeZone: 'Europe/Berlin' });
  await meetingType(s, { slug: 'intro', title: 'Intro call', location: 'Room 1' });
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

/** The booking pages' procedures, as a browser in `language` calls them. */
function browser(acceptLanguage: string) {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test', 'accept-language': acceptLanguage });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  return createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db, now: () => new Date() }).requester;
}

const day = nextWeekday('wed', 'Europe/Berlin');

async function submit(acceptLanguage: string, requester: string, guest: string, hhmm: [string, string]) {
  const out = await browser(acceptLanguage).submit({
    link: s.alias,
    time_zone: 'Europe/Berlin',
    requester_contact: { email: requester, name: 'Rhea' },
    attendees: [{ email: guest }],
    public_meeting_type: 'intro',
    duration_minutes: 30,
    requested_window: { start: day.at(hhmm[0]), end: day.at(hhmm[1]) },
  });
  return new URL(out.status_url).pathname.split('/').pop()!;
}

describe('a requester who booked in German', () => {
  it('gets the verification, booked and invitation mails in German, the ICS SUMMARY and DESCRIPTION too; the others stay English', async () => {
    const requester = uniqueEmail('rhea');
    const guest = uniqueEmail('guest');
    const token = await submit('de-DE,de;q=0.9', requester, guest, ['10:30', '11:00']);
    const when = new Intl.DateTimeFormat('de', { timeZone: 'Europe/Berlin', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(day.at('10:30')));

    const verify = await smtp.waitFor(requester, { subject: /^Bestätigen Sie Ihre E-Mail-Adresse/ });
    expect(verify.text).toContain(`Sie haben „Intro call“ mit Bea Berlin am ${when}, 10:30–11:00`);
    expect(verify.raw).toMatch(/<html lang=(?:3D)?"de" dir=(?:3D)?"ltr">/);
    const link = linksIn(verify).find((l) => l.includes('/contact-verifications/'))!;
    expect((await pubUrl('POST', link, { headers: { accept: 'application/json' } })).status).toBe(200);

    const owner = await ownerCaller(s);
    // The owner's mail stays English and names the language.
    const announced = await smtp.waitFor(s.ownerEmail, { subject: /^New meeting request from Rhea$/ });
    expect(announced.text).toContain('They used the booking page in German.');
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === requester)!;
    await owner.proposals.approve({ proposal_id: pending.proposal_id });
    const booked = await smtp.waitFor(requester, { subject: /^Ihre Terminanfrage wurde angenommen$/ });
    expect(booked.text).toContain(`Ihre Anfrage für „Intro call“ mit Bea Berlin am ${when}, 10:30–11:00`);
    expect(booked.text).toContain('Ort: Room 1');

    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const inv = await smtp.waitFor(requester, { subject: /^Einladung: Intro call$/ });
    expect(inv.text).toContain('Sie wurden von Bea Berlin');
    expect(inv.text).toContain(`Wann: ${when}, 10:30–11:00`);
    const ev = new ICAL.Component(ICAL.parse(attachmentOf(inv.raw, 'invite.ics')!.body)).getFirstSubcomponent('vevent')!;
    expect(ev.getFirstPropertyValue('summary')).toBe('Intro call mit Bea Berlin');
    expect(ev.getFirstPropertyValue('description')).toContain(`${when}, 10:30–11:00`);
    expect(ev.getFirstPropertyValue('description')).toContain('Der Statuslink aus Ihrer ersten Nachricht');
    // The guest's invitation: English, the shared file (the booking's own title; same UID).
    const guestInv = await smtp.waitFor(guest, { subject: /^Invitation: Intro call with Rhea$/ });
    const gev = new ICAL.Component(ICAL.parse(attachmentOf(guestInv.raw, 'invite.ics')!.body)).getFirstSubcomponent('vevent')!;
    expect(gev.getFirstPropertyValue('summary')).toBe('Intro call with Rhea');
    expect(gev.getFirstPropertyValue('uid')).toBe(ev.getFirstPropertyValue('uid'));

    // "Add to calendar" on the status page: titled in German.
    const file = await pub('GET', `/public/booking-proposals/${token}/calendar.ics`);
    expect(new ICAL.Component(ICAL.parse(file.text)).getFirstSubcomponent('vevent')!.getFirstPropertyValue('summary')).toBe('Intro call mit Bea Berlin');

    // Moved at their request: the answer in the meeting's language.
    const next = nextWeekday('thu', 'Europe/Berlin');
    const to = (await browser('de').moveTimes({ token, from: next.at('00:00') })).suggested_times[0];
    await browser('de').requestMove({ token, start: to.start, end: to.end, time_zone: 'Europe/Berlin' });
    const move = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === requester)!;
    await owner.proposals.approve({ proposal_id: move.proposal_id });
    const moved = await smtp.waitFor(requester, { subject: /^Ihr Termin wurde verschoben$/ });
    expect(moved.text).toContain('Ihre Anfrage, „Intro call“ mit Bea Berlin zu verschieben, wurde angenommen.');
    expect(moved.text).toContain(`Bisher: ${when}, 10:30–11:00`);
  });
});

describe('a requester who booked in Arabic', () => {
  it('gets a right-to-left mail in Arabic', async () => {
    const requester = uniqueEmail('rami');
    await submit('ar', requester, uniqueEmail('guest'), ['12:00', '12:30']);
    const verify = await smtp.waitFor(requester, { subject: /^أكّد بريدك الإلكتروني/ });
    expect(verify.text).toContain('«Intro call» مع Bea Berlin');
    expect(verify.raw).toMatch(/<html lang=(?:3D)?"ar" dir=(?:3D)?"rtl">/);
  });
});
