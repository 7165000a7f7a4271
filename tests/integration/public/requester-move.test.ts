import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, bookingProposals, claims } from '@/db/schema';
import { getDb, type Db } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { linksIn, type TestSmtp } from '../../helpers/smtp';
import { call, confirm, expectNoLeaks, freshIp, meetingType, nextWeekday, ownerCaller, proposalRow, publicOwner, recorded, submitFirst, useSmtp, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "Asking to move" (issue 28 item 5, the requester's half): from the
 * status page of a booked meeting the requester asks for another suggested time; the request
 * is a proposal naming the booking; approving it moves the booking in place (same id, the
 * reschedule path), declining leaves it, a book-instantly type moves it at once; refusals
 * leave the booking unchanged; mail in each reader's zone.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let db: Db;
let intro: string;
let instant: string;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  db = await getDb();
  s = await publicOwner(admin, { name: 'Bea Berlin', timeZone: 'Europe/Berlin' });
  intro = await meetingType(s, { slug: 'intro', title: 'Intro call' });
  instant = await meetingType(s, { slug: 'quick', title: 'Quick chat', book_instantly: true });
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
    status: (token: string) => record('status', r.status({ token })),
    cancelMeeting: (token: string) => record('cancelMeeting', r.cancelMeeting({ token })),
    moveTimes: (token: string, from?: string) => record('moveTimes', r.moveTimes({ token, ...(from ? { from } : {}) })),
    requestMove: (token: string, t: { start: string; end: string }, note?: string) =>
      record('requestMove', r.requestMove({ token, start: t.start, end: t.end, time_zone: 'America/New_York', ...(note ? { note } : {}) })),
  };
}

const cause = (code: string) => ({ cause: { code } });
const day = nextWeekday('wed', 'Europe/Berlin');

/** A booked meeting of `slug` (confirmed, and approved unless the type books instantly): its token, booking id and time. */
async function booked(slug: string) {
  const created = await submitFirst(s, slug, { day });
  expect((await confirm(created)).status).toBe(200);
  let p = await proposalRow(created.token);
  if (p.status === 'pending_review') {
    const owner = await ownerCaller(s);
    await owner.proposals.approve({ proposal_id: p.id });
    p = await proposalRow(created.token);
  }
  expect(p.status).toBe('booked');
  return { token: created.token, requester: created.requester, bookingId: p.bookingId!, slot: created.slot };
}

async function bookingRow(id: string) {
  const [row] = await db.select().from(claims).where(eq(claims.id, id));
  return row;
}

/** A move suggestion on another day than the meeting (so it never touches its old time). */
async function laterTime(token: string) {
  const next = nextWeekday('thu', 'Europe/Berlin');
  const times = (await browser().moveTimes(token, next.at('00:00'))).suggested_times;
  expect(times.length).toBeGreaterThan(0);
  return times[0];
}

describe('asking to move a booked meeting', () => {
  it('offers the suggested times without the current one, stores one request, and approving moves the booking in place', async () => {
    const m = await booked(intro);
    const status = await browser().status(m.token);
    expect(status).toMatchObject({ status: 'booked', movable: true, move_request: null });

    // The suggestions: the meeting's own length, never its current time, and times touching it are free (it is set aside).
    const same = await browser().moveTimes(m.token, day.at('00:00'));
    expect(same.duration_minutes).toBe(30);
    expect(same.suggested_times.map((t) => t.start)).not.toContain(m.slot.start);
    const half = new Date(Date.parse(m.slot.start) + 30 * 60_000).toISOString();
    expect(same.suggested_times.map((t) => t.start)).toContain(half);

    // Not a suggestion: refused, nothing stored.
    await expect(browser().requestMove(m.token, m.slot)).rejects.toMatchObject(cause('time_unavailable'));
    await expect(browser().requestMove(m.token, { start: day.at('03:00'), end: day.at('03:30') })).rejects.toMatchObject(cause('time_unavailable'));

    const to = await laterTime(m.token);
    const after = await browser().requestMove(m.token, to, 'A train strike, sorry.');
    expect(after).toMatchObject({ status: 'booked', start: m.slot.start, movable: false, move_request: { status: 'pending_review', start: to.start, end: to.end } });
    // No second request while one waits.
    await expect(browser().requestMove(m.token, to)).rejects.toMatchObject(cause('move_pending'));

    // The owner's review: a request to move, old -> new, and the mail in the owner's zone.
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.moves?.booking_id === m.bookingId)!;
    expect(pending).toMatchObject({ origin: 'public', requested_window: to, moves: { booking_id: m.bookingId, start: m.slot.start, end: m.slot.end }, message: 'A train strike, sorry.' });
    const asked = await smtp.waitFor(s.ownerEmail, { subject: /asks to move Intro call/ });
    expect(asked.text).toContain('(Europe/Berlin)');
    expect(linksIn(asked)).toEqual([`http://scheduler.test/dashboard/proposals/${pending.proposal_id}`]);

    // The review page: the asked time is free (the booking is never a conflict of its own request).
    const review = await owner.proposals.review({ proposal_id: pending.proposal_id });
    expect(review.proposal).toMatchObject({ title: 'Intro call with Rita Requester', moves: { booking_id: m.bookingId } });
    expect(review.verdicts).toMatchObject([{ start: to.start, verdict: 'free', displaced: [] }]);

    const result = await owner.proposals.approve({ proposal_id: pending.proposal_id });
    expect(result).toMatchObject({ status: 'booked', booking_id: m.bookingId, start: to.start, end: to.end });
    const row = await bookingRow(m.bookingId);
    expect(row).toMatchObject({ status: 'confirmed', startAt: new Date(to.start), endAt: new Date(to.end), sequence: 1, externalAccepted: true });
    // The requester asked for this time: still accepted (the meeting stays sacred).
    expect(row.attendees.find((a) => a.email === m.requester)?.response).toBe('accepted');
    expect((await db.select().from(claims).where(eq(claims.proposalId, (await proposalRow(m.token)).id))).length).toBe(1);
    const [move] = await db.select().from(bookingProposals).where(eq(bookingProposals.id, pending.proposal_id));
    expect(move).toMatchObject({ status: 'booked', bookingId: m.bookingId, movesBookingId: m.bookingId });
    const audit = await db.select().from(auditLog).where(and(eq(auditLog.bookingId, m.bookingId), eq(auditLog.action, 'booking.reschedule')));
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toMatchObject({ proposal_id: pending.proposal_id, moves_booking_id: m.bookingId });

    // The status page shows the new time; the requester's mail is in their zone.
    expect(await browser().status(m.token)).toMatchObject({ status: 'booked', start: to.start, end: to.end, movable: true, move_request: { status: 'booked' } });
    const mail = await smtp.waitFor(m.requester, { subject: /^Your meeting was moved$/ });
    expect(mail.text).toContain('(America/New_York)');
    expect(mail.text).toMatch(/New time: .+\s+Was: /);
  });

  it('declining leaves the booking where it is and tells the requester', async () => {
    const m = await booked(intro);
    const to = await laterTime(m.token);
    await browser().requestMove(m.token, to);
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.moves?.booking_id === m.bookingId)!;
    await owner.proposals.decline({ proposal_id: pending.proposal_id, reason: 'That day is full.' });
    expect(await bookingRow(m.bookingId)).toMatchObject({ status: 'confirmed', startAt: new Date(m.slot.start), sequence: 0 });
    expect(await browser().status(m.token)).toMatchObject({ start: m.slot.start, movable: true, move_request: { status: 'declined', decline_reason: 'That day is full.' } });
    const mail = await smtp.waitFor(m.requester, { subject: /request to move the meeting was declined/ });
    expect(mail.text).toContain('That day is full.');
    expect(mail.text).toContain('The meeting stays at');
    expect(mail.text).toContain('(America/New_York)');
    // Asking again is allowed once the first is decided.
    await browser().requestMove(m.token, to);
  });

  it('a book-instantly type moves the meeting at once and mails the owner in their zone', async () => {
    const m = await booked(instant);
    const to = await laterTime(m.token);
    const after = await browser().requestMove(m.token, to);
    expect(after).toMatchObject({ status: 'booked', start: to.start, end: to.end, move_request: { status: 'booked' } });
    expect(await bookingRow(m.bookingId)).toMatchObject({ startAt: new Date(to.start), sequence: 1 });
    const told = await smtp.waitFor(s.ownerEmail, { subject: /^Moved by Rita Requester: Quick chat/ });
    expect(told.text).toContain('(Europe/Berlin)');
    await smtp.waitFor(m.requester, { subject: /^Your meeting was moved$/ });
  });

  it('a time taken meanwhile is refused on approval and the booking stays; preemption needs the owner to confirm it', async () => {
    const m = await booked(intro);
    const to = await laterTime(m.token);
    await browser().requestMove(m.token, to);
    const owner = await ownerCaller(s);
    const pending = (await owner.proposals.listPending()).proposals.find((p) => p.moves?.booking_id === m.bookingId)!;

    // An agent books the asked time at the same priority: arbitration refuses, nothing moves, the request waits.
    const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', ...to } });
    expect(taken.status, taken.text).toBe(201);
    await expect(owner.proposals.approve({ proposal_id: pending.proposal_id })).rejects.toMatchObject(cause('ARBITRATION_REJECTED'));
    expect(await bookingRow(m.bookingId)).toMatchObject({ status: 'confirmed', startAt: new Date(m.slot.start), sequence: 0 });
    expect((await proposalRow(m.token)).status).toBe('booked');
    const [still] = await db.select().from(bookingProposals).where(eq(bookingProposals.id, pending.proposal_id));
    expect(still.status).toBe('pending_review');

    // A lower-priority meeting there instead: it gives way only when the owner confirms exactly it.
    await call('POST', `/v1/bookings/${taken.body.booking_id}/cancel`, { key: admin.key, body: {} });
    const lower = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', ...to } });
    expect(lower.status, lower.text).toBe(201);
    await expect(owner.proposals.approve({ proposal_id: pending.proposal_id })).rejects.toMatchObject(cause('PREEMPTION_NOT_CONFIRMED'));
    expect(await bookingRow(m.bookingId)).toMatchObject({ startAt: new Date(m.slot.start) });
    const done = await owner.proposals.approve({ proposal_id: pending.proposal_id, confirm_preemption: [lower.body.booking_id] });
    expect(done).toMatchObject({ booking_id: m.bookingId, preempted_booking_ids: [lower.body.booking_id] });
    expect(await bookingRow(lower.body.booking_id)).toMatchObject({ status: 'preempted' });
  });

  it('two requests at once: exactly one is stored, the other is move_pending', async () => {
    const m = await booked(intro);
    const to = await laterTime(m.token);
    const both = await Promise.allSettled([browser().requestMove(m.token, to), browser().requestMove(m.token, to)]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(both.find((r) => r.status === 'rejected')).toMatchObject({ reason: cause('move_pending') });
    expect(await db.select().from(bookingProposals).where(eq(bookingProposals.movesBookingId, m.bookingId))).toHaveLength(1);
  });

  it('cancelling the meeting withdraws a waiting request to move', async () => {
    const m = await booked(intro);
    await browser().requestMove(m.token, await laterTime(m.token));
    await browser().cancelMeeting(m.token);
    const moves = await db.select().from(bookingProposals).where(eq(bookingProposals.movesBookingId, m.bookingId));
    expect(moves.map((p) => p.status)).toEqual(['withdrawn']);
    expect(await browser().status(m.token)).toMatchObject({ status: 'cancelled', movable: false });
  });

  it('only a booked meeting can be asked to move', async () => {
    const created = await submitFirst(s, intro, { day });
    await expect(browser().moveTimes(created.token)).rejects.toMatchObject(cause('not_movable'));
    await expect(browser().requestMove(created.token, created.slot)).rejects.toMatchObject(cause('not_movable'));
    expect(await browser().status(created.token)).toMatchObject({ movable: false, move_request: null });
  });
});
