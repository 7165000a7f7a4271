import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingProposals, claims } from '@/db/schema';
import { getDb } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { call, confirm, expectNoLeaks, meetingType, nextWeekday, proposalRow, pub, publicOwner, structured, useSmtp, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "Meeting type details" (extensions, off by
 * default): minimum notice keeps early times out of the suggestions, and a
 * type that books instantly books a verified request at once when nothing
 * has to give way, else leaves it for review.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin, { name: 'Ines Instant' });
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

const HOUR = 3_600_000;
const day = nextWeekday('thu', 'UTC');

async function times(slug: string, from: string, to: string) {
  const res = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?duration_minutes=30&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  expect(res.status, res.text).toBe(200);
  return res.body.suggested_times.map((t: { start: string; end: string }) => ({ start: t.start, end: t.end })) as { start: string; end: string }[];
}

describe('meeting type details', () => {
  it('min_notice_hours: no suggested time (and no submission) sooner than the notice', async () => {
    const plain = await meetingType(s, { slug: 'plain', duration_minutes: [30] });
    const noticed = await meetingType(s, { slug: 'noticed', duration_minutes: [30], min_notice_hours: 96 });
    const now = Date.now();
    const from = new Date(now).toISOString();
    const to = new Date(now + 10 * 24 * HOUR).toISOString();
    // 96 h always hold two working days (Mon-Fri), whatever the day the test runs.
    const all = await times(plain, from, to);
    const later = await times(noticed, from, to);
    expect(all.some((t) => Date.parse(t.start) < now + 95 * HOUR)).toBe(true);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((t) => Date.parse(t.start) >= now + 96 * HOUR)).toBe(true);
    // A time inside the notice cannot be requested either.
    const early = all.find((t) => Date.parse(t.start) < now + 95 * HOUR)!;
    const res = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(noticed, early) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('time_unavailable');
    const bad = await call('PATCH', `/v1/public-scheduling/links/${s.linkId}/meeting-types/noticed`, { key: admin.key, body: { min_notice_hours: 721 } });
    expect(bad.status).toBe(400);
  });

  it('book_instantly: a verified request for a free time is booked at once; one that would preempt waits for review', async () => {
    const slug = await meetingType(s, { slug: 'instant', duration_minutes: [30], book_instantly: true, location: '1 Main Street, Springfield' });
    const free = (await times(slug, day.at('09:00'), day.at('12:00')))[0];
    const requester = uniqueEmail('instant');
    const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(slug, free, requester) });
    expect(created.status, created.text).toBe(201);
    const confirmed = await confirm(created.body);
    expect(confirmed.body).toEqual({ status: 'booked' });
    const token = new URL(created.body.status_url).pathname.split('/').pop()!;
    const row = await proposalRow(token);
    expect(row.status).toBe('booked');
    const db = await getDb();
    const [booking] = await db.select().from(claims).where(eq(claims.id, row.bookingId!));
    expect(booking).toMatchObject({ status: 'confirmed', startAt: new Date(free.start), source: 'public' });
    expect((await smtp.waitFor(requester, { subject: /accepted/ })).text).toContain('Where: 1 Main Street, Springfield');

    // A lower-priority booking sits on the next time: the type's class could preempt it, but instant booking never does.
    const next = (await times(slug, day.at('13:00'), day.at('16:00')))[0];
    const r2 = uniqueEmail('instant2');
    const c2 = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(slug, next, r2) });
    expect(c2.status, c2.text).toBe(201);
    const blocker = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: next.start, end: next.end } });
    expect(blocker.status, blocker.text).toBe(201);
    expect((await confirm(c2.body)).body).toEqual({ status: 'pending_review' });
    const row2 = await proposalRow(new URL(c2.body.status_url).pathname.split('/').pop()!);
    expect(row2.status).toBe('pending_review');
    const [kept] = await db.select().from(claims).where(eq(claims.id, blocker.body.booking_id));
    expect(kept.status).toBe('confirmed');
    // The owner is told it waits for them.
    await smtp.waitFor(s.ownerEmail, { subject: /^New meeting request/ });
    expect((await db.select({ id: bookingProposals.id }).from(bookingProposals).where(eq(bookingProposals.id, row2.id))).length).toBe(1);
  });

  it('book_instantly is off by default: a verified request waits for review', async () => {
    const slug = await meetingType(s, { slug: 'reviewed', duration_minutes: [30] });
    const free = (await times(slug, day.at('09:00'), day.at('17:00')))[0];
    const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(slug, free) });
    expect((await confirm(created.body)).body).toEqual({ status: 'pending_review' });
  });
});
