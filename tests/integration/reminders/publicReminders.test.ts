import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { bookingReminders, claims } from '@/db/schema';
import { getDb, type Db } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { startReminderWorker } from '@/server/domain/reminders/worker';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { expectEnvelope, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { linksIn, type TestSmtp } from '../../helpers/smtp';
import { call, freshIp, meetingType, nextWeekday, ownerCaller, pubUrl, publicOwner, useSmtp, type PublicSetup } from '../public/fixtures';

/**
 * Reminders of a public booking (docs/reliability.md "Reminders"): the meeting type's own offsets
 * replace its class's; the requester is reminded in the zone and language their booking pages used.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let db: Db;
let s: PublicSetup;
const day = nextWeekday('wed', 'Europe/Berlin');
const slot = { start: day.at('10:30'), end: day.at('11:00') };

beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  db = await getDb();
  s = await publicOwner(admin, { name: 'Bea Berlin', timeZone: 'Europe/Berlin' });
  await meetingType(s, { slug: 'intro', title: 'Intro call', reminder_offsets_minutes: [120] });
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

function requester(acceptLanguage = 'en') {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test', 'accept-language': acceptLanguage });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  return createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db, now: () => new Date() }).requester;
}

describe('a public meeting type', () => {
  it("answers and validates its own offsets; null takes the class's", async () => {
    const path = `/v1/public-scheduling/links/${s.linkId}/meeting-types`;
    const shown = await call('GET', `${path}/intro`, { key: admin.key });
    expect(shown.body.reminder_offsets_minutes).toEqual([120]);
    expectEnvelope(await call('PATCH', `${path}/intro`, { key: admin.key, body: { reminder_offsets_minutes: [2] } }), 400, 'invalid_request');
    const other = await meetingType(s, { slug: 'plain', title: 'Plain' });
    expect((await call('GET', `${path}/${other}`, { key: admin.key })).body.reminder_offsets_minutes).toBeNull();
  });

  it("books with the type's offsets and reminds the requester in their zone", async () => {
    const nora = uniqueEmail('nora');
    await requester().submit({
      link: s.alias,
      time_zone: 'America/New_York',
      requester_contact: { email: nora, name: 'Nora York' },
      attendees: [],
      public_meeting_type: 'intro',
      duration_minutes: 30,
      requested_window: slot,
    });
    const verify = linksIn(await smtp.waitFor(nora, { subject: /^Confirm your email/ })).find((l) => l.includes('/contact-verifications/'))!;
    expect((await pubUrl('POST', verify, { headers: { accept: 'application/json' } })).status).toBe(200);
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === nora)!;
    const booked = await owner.proposals.approve({ proposal_id: pending.proposal_id });
    const bookingId = (booked as { booking_id: string }).booking_id;
    const [row] = await db.select({ id: claims.id }).from(claims).where(eq(claims.id, bookingId));
    expect(row).toBeDefined();
    // The type's 120 minutes, not the class's (external: none).
    const reminders = await db.select().from(bookingReminders).where(eq(bookingReminders.bookingId, bookingId));
    expect(reminders.map((r) => [r.offsetMinutes, r.dueAt.toISOString()])).toEqual([[120, new Date(Date.parse(slot.start) - 120 * 60_000).toISOString()]]);

    const clock = () => new Date(Date.parse(slot.start) - 60 * 60_000);
    let done!: () => void;
    const sent = new Promise<void>((resolve) => (done = resolve));
    const stop = startReminderWorker(getDb, { pollMs: 60_000, now: clock, customerId: admin.customerId, onOutcome: (o) => o === 'sent' && done() });
    await sent;
    stop();
    const mail = await smtp.waitFor(nora, { subject: /^Reminder: Intro call in 2 hours$/ });
    // 10:30 in Berlin is 4:30 in New York.
    expect(mail.text).toMatch(/4:30 – 5:00 AM E[SD]T \(America\/New_York\)/);
    expect(mail.text).toContain('"Intro call" with Bea Berlin starts in 2 hours');
  });

  it('reminds a requester who booked in Japanese in Japanese (docs/public-scheduling.md "Languages")', async () => {
    const kenji = uniqueEmail('kenji');
    const later = { start: day.at('13:00'), end: day.at('13:30') };
    await requester('ja').submit({
      link: s.alias,
      time_zone: 'Asia/Tokyo',
      requester_contact: { email: kenji, name: 'Kenji' },
      attendees: [],
      public_meeting_type: 'intro',
      duration_minutes: 30,
      requested_window: later,
    });
    const verify = linksIn(await smtp.waitFor(kenji, { subject: /^ミーティングのリクエストを送信するには/ })).find((l) => l.includes('/contact-verifications/'))!;
    expect((await pubUrl('POST', verify, { headers: { accept: 'application/json' } })).status).toBe(200);
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.requester?.email === kenji)!;
    await owner.proposals.approve({ proposal_id: pending.proposal_id });
    const clock = () => new Date(Date.parse(later.start) - 60 * 60_000);
    let done!: () => void;
    const sent = new Promise<void>((resolve) => (done = resolve));
    const stop = startReminderWorker(getDb, { pollMs: 60_000, now: clock, customerId: admin.customerId, onOutcome: (o) => o === 'sent' && done() });
    await sent;
    stop();
    const mail = await smtp.waitFor(kenji, { subject: /^リマインダー：2時間後にIntro call$/ });
    expect(mail.text).toContain('Bea Berlinさんとの「Intro call」は2時間後に始まります：');
    // 13:00 in Berlin is 20:00 or 21:00 in Tokyo (by the season), written by Intl in Japanese.
    expect(mail.text).toMatch(/2[01]時00分～2[01]時30分/);
    expect(mail.text).toContain('（Asia/Tokyo）');
  });
});
