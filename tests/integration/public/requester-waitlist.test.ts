import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingProposals, claims, waitlistEntries } from '@/db/schema';
import { getDb, type Db } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { hashSecret } from '@/server/domain/ids';
import { sweepDueHolds } from '@/server/domain/waitlist/sweep';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { uniqueEmail, newCustomer, type TestCustomer } from '../../helpers/app';
import { linksIn, type TestSmtp } from '../../helpers/smtp';
import { call, freshIp, meetingType, nextWeekday, ownerCaller, publicOwner, useSmtp, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "Waitlist" (issue 40 item 2, the requester's half): a requester joins
 * from a meeting type's page; time a cancel frees is offered in the same transaction as a hold
 * for no agent; the offer's mail carries the entry's page, where the requester confirms (through
 * the held-request path: booked at once on a book-instantly type, else the owner reviews) or
 * declines; a lapsed or declined offer goes to the next entry; the join mail's page leaves.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let db: Db;
const TZ = 'UTC';
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  db = await getDb();
  s = await publicOwner(admin, { name: 'Bea Owner', timeZone: TZ });
  await meetingType(s, { slug: 'quick', title: 'Quick chat', book_instantly: true });
  await meetingType(s, { slug: 'intro', title: 'Intro call' });
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

function browser(lang = 'en') {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test', cookie: `requester_lang=${lang}` });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  return createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db, now: () => new Date() }).requester;
}

const cause = (code: string) => ({ cause: { code } });
let week = 0;
/** A weekday of its own for each test (so one test's bookings never meet another's). */
const freshDay = () => nextWeekday('tue', TZ, 1 + week++);

/** The owner's 10:00-10:30 taken by an agent's booking: its id. */
async function takeTen(day: ReturnType<typeof nextWeekday>) {
  const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') } });
  expect(res.status, res.text).toBe(201);
  return res.body.booking_id as string;
}
const cancel = async (id: string) => expect((await call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);

/** Join for 10:00-10:30 of `day`; the join mail's page token. */
async function join(day: ReturnType<typeof nextWeekday>, slug: string, email = uniqueEmail('waiter'), lang = 'en') {
  const out = await browser(lang).joinWaitlist({ link: s.alias, slug, time_zone: TZ, form: { duration_minutes: 30, date: day.date.toString(), from: '10:00', to: '10:30', name: 'Wanda Waiter', email } });
  expect(out.status).toBe('waiting');
  const mail = await smtp.waitFor(email, { subject: /waitlist|Warteliste/ });
  const page = linksIn(mail).find((l) => l.includes('/waitlist/'))!;
  expect(page).toMatch(/^http:\/\/scheduler\.test\/waitlist\/wl_[\w-]{40,}$/);
  return { email, token: page.split('/').pop()!, mail };
}
const entryOf = async (token: string) => (await db.select().from(waitlistEntries).where(eq(waitlistEntries.tokenHash, hashSecret(token))))[0];

describe('a requester on the waitlist', () => {
  it('joins, is offered the freed time with a mail, and confirms it through the link (book instantly)', async () => {
    const day = freshDay();
    const booking = await takeTen(day);
    const w = await join(day, 'quick');
    expect(w.mail.text).toContain('Quick chat');
    expect((await browser().waitlist({ token: w.token })).status).toBe('waiting');

    await cancel(booking);
    const e = await entryOf(w.token);
    expect(e.status).toBe('offered');
    const [hold] = await db.select().from(claims).where(eq(claims.id, e.holdId!));
    expect(hold).toMatchObject({ kind: 'hold', status: 'active', agentId: null, startAt: new Date(day.at('10:00')), endAt: new Date(day.at('10:30')) });
    const offerMail = await smtp.waitFor(w.email, { subject: /freed up/ });
    expect(linksIn(offerMail)).toContain(`http://scheduler.test/waitlist/${w.token}`);
    const page = await browser().waitlist({ token: w.token });
    expect(page).toMatchObject({ status: 'offered', title: 'Quick chat', owner_name: 'Bea Owner', offer: { start: new Date(day.at('10:00')).toISOString() } });

    const done = await browser().confirmWaitlistOffer({ token: w.token });
    expect(done.status).toBe('confirmed');
    const [p] = await db.select().from(bookingProposals).where(eq(bookingProposals.holdId, hold.id));
    expect(p).toMatchObject({ origin: 'public', status: 'booked', requesterEmail: w.email });
    const [booked] = await db.select().from(claims).where(eq(claims.id, p.bookingId!));
    expect(booked).toMatchObject({ kind: 'booking', status: 'confirmed', holdId: hold.id, source: 'public', startAt: hold.startAt });
    await smtp.waitFor(w.email, { subject: /accepted/ });
    // The status page the entry's page links to reads the booking.
    expect((await browser().status({ token: done.status_path!.split('/').pop()! })).status).toBe('booked');
    // A second confirm is refused: the offer is no longer open.
    await expect(browser().confirmWaitlistOffer({ token: w.token })).rejects.toMatchObject(cause('offer_not_open'));
  });

  it('a type needing approval: the confirmed offer waits for the owner with its time held, then is booked', async () => {
    const day = freshDay();
    const booking = await takeTen(day);
    const w = await join(day, 'intro', uniqueEmail('waiter'), 'de');
    expect(w.mail.subject).toContain('Warteliste');
    await cancel(booking);
    const offer = await smtp.waitFor(w.email, { subject: /frei geworden/ });
    expect(offer.text).toContain('Intro call');
    await browser().confirmWaitlistOffer({ token: w.token });
    const e = await entryOf(w.token);
    const [hold] = await db.select().from(claims).where(eq(claims.id, e.holdId!));
    expect(hold.status).toBe('active');
    expect(hold.expiresAt).toEqual(hold.startAt);
    const [p] = await db.select().from(bookingProposals).where(eq(bookingProposals.id, e.proposalId!));
    expect(p.status).toBe('pending_review');
    const owner = await ownerCaller(s);
    await owner.proposals.approve({ proposal_id: p.id });
    const [after] = await db.select().from(bookingProposals).where(eq(bookingProposals.id, p.id));
    expect(after.status).toBe('booked');
    const [promoted] = await db.select().from(claims).where(eq(claims.id, hold.id));
    expect(promoted.status).toBe('promoted');
  });

  it('an offer that expires goes to the next entry (the sweeper), and a declined one to the next again', async () => {
    const day = freshDay();
    const booking = await takeTen(day);
    const first = await join(day, 'quick');
    const second = await join(day, 'quick');
    const third = await join(day, 'quick');
    await cancel(booking);
    const a = await entryOf(first.token);
    expect(a.status).toBe('offered');
    expect((await entryOf(second.token)).status).toBe('waiting');
    // The hold's time to live passes: the sweeper expires it and offers the time to the next entry.
    await db.update(claims).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(claims.id, a.holdId!));
    await sweepDueHolds(db, new Date());
    expect((await browser().waitlist({ token: first.token })).status).toBe('lapsed');
    const b = await entryOf(second.token);
    expect(b.status).toBe('offered');
    await smtp.waitFor(second.email, { subject: /freed up/ });
    // The second declines: the third is offered the same time in that transaction.
    expect((await browser().leaveWaitlist({ token: second.token })).status).toBe('cancelled');
    expect((await db.select().from(claims).where(eq(claims.id, b.holdId!)))[0].status).toBe('released');
    const c = await entryOf(third.token);
    expect(c.status).toBe('offered');
    expect((await db.select().from(claims).where(eq(claims.id, c.holdId!)))[0]).toMatchObject({ status: 'active', startAt: new Date(day.at('10:00')) });
    await smtp.waitFor(third.email, { subject: /freed up/ });
  });

  it('leaves through the join mail link: nothing is offered to it afterwards', async () => {
    const day = freshDay();
    const booking = await takeTen(day);
    const w = await join(day, 'quick');
    expect((await browser().leaveWaitlist({ token: w.token })).status).toBe('cancelled');
    expect((await browser().leaveWaitlist({ token: w.token })).status).toBe('cancelled');
    await cancel(booking);
    const e = await entryOf(w.token);
    expect([e.status, e.holdId]).toEqual(['cancelled', null]);
  });

  it('validates like the request form, and refuses made-up tokens', async () => {
    const day = freshDay();
    const base = { duration_minutes: 30, date: day.date.toString(), email: uniqueEmail('w') };
    await expect(browser().joinWaitlist({ link: s.alias, slug: 'nope', time_zone: TZ, form: base })).rejects.toMatchObject(cause('not_found'));
    await expect(browser().joinWaitlist({ link: s.alias, slug: 'quick', time_zone: TZ, form: { ...base, duration_minutes: 45 } })).rejects.toMatchObject(cause('invalid_request'));
    await expect(browser().joinWaitlist({ link: s.alias, slug: 'quick', time_zone: TZ, form: { ...base, from: '10:00', to: '10:15' } })).rejects.toMatchObject(cause('WINDOW_TOO_NARROW'));
    await expect(browser().joinWaitlist({ link: s.alias, slug: 'quick', time_zone: TZ, form: { ...base, date: '2020-01-01' } })).rejects.toMatchObject(cause('PAST_TIME'));
    await expect(browser().joinWaitlist({ link: s.alias, slug: 'quick', time_zone: TZ, form: { ...base, email: 'not-an-email' } })).rejects.toThrow();
    const email = uniqueEmail('many');
    for (let i = 0; i < 5; i++) await browser().joinWaitlist({ link: s.alias, slug: 'quick', time_zone: TZ, form: { ...base, email } });
    await expect(browser().joinWaitlist({ link: s.alias, slug: 'quick', time_zone: TZ, form: { ...base, email } })).rejects.toMatchObject(cause('waitlist_full'));
    await expect(browser().waitlist({ token: 'wl_madeup' })).rejects.toMatchObject(cause('not_found'));
    await expect(browser().confirmWaitlistOffer({ token: 'wl_madeup' })).rejects.toMatchObject(cause('not_found'));
  });

  it('the database holds an entry to exactly one of an agent and a requester', async () => {
    const [row] = await db.select().from(waitlistEntries).where(eq(waitlistEntries.linkId, s.linkId)).limit(1);
    await expect(db.update(waitlistEntries).set({ agentId: admin.agentId }).where(eq(waitlistEntries.id, row.id))).rejects.toThrow();
    await expect(db.update(waitlistEntries).set({ requesterEmail: null }).where(eq(waitlistEntries.id, row.id))).rejects.toThrow();
  });
});
