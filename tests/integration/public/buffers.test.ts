import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { claims } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { call, confirm, expectNoLeaks, meetingType, nextWeekday, ownerCaller, proposalRow, pub, publicOwner, structured, useSmtp, type PublicSetup } from './fixtures';

/**
 * Buffers of public meeting types (docs/arbitration.md "Buffers", docs/public-scheduling.md):
 * the times a requester is offered keep the type's buffers around the owner's meetings (and the
 * meetings' own buffers), and a meeting booked through the type keeps them from then on. The
 * public answers never say why a time is missing.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
const day = nextWeekday('thu', 'UTC');

beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin);
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

const times = async (slug: string, from: string, to: string) => {
  const res = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${encodeURIComponent(day.at(from))}&to=${encodeURIComponent(day.at(to))}&duration_minutes=30`);
  expect(res.status, res.text).toBe(200);
  return res.body.suggested_times as { start: string; end: string }[];
};

describe('public meeting types with buffers', () => {
  it('stores and answers the buffers; refuses more than 240 minutes', async () => {
    const slug = await meetingType(s, { slug: 'stored', buffer_before_minutes: 10, buffer_after_minutes: 20 });
    const read = await call('GET', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key });
    expect(read.body).toMatchObject({ buffer_before_minutes: 10, buffer_after_minutes: 20 });
    const patched = await call('PATCH', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key, body: { buffer_after_minutes: 0 } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ buffer_before_minutes: 10, buffer_after_minutes: 0 });
    const tooLong = await call('PATCH', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key, body: { buffer_before_minutes: 241 } });
    expect(tooLong.status).toBe(400);
  });

  it('suggested times keep the type\'s buffers around a meeting; a time booked through it keeps them against later bookings', async () => {
    const plain = await meetingType(s, { slug: 'plain', duration_minutes: [30], book_instantly: true });
    const buffered = await meetingType(s, { slug: 'buffered', duration_minutes: [30], book_instantly: true, buffer_before_minutes: 15, buffer_after_minutes: 15 });
    const agentBooking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: day.at('10:00'), end: day.at('11:00') } });
    expect(agentBooking.status, agentBooking.text).toBe(201);
    const starts = async (slug: string) => (await times(slug, '09:00', '12:00')).map((t) => t.start);
    expect(await starts(plain)).toEqual([day.at('09:00'), day.at('09:30'), day.at('11:00'), day.at('11:30')]);
    expect(await starts(buffered)).toEqual([day.at('09:00'), day.at('11:30')]);

    // Booked at once through the type: the booking keeps the type's buffers.
    const slot = { start: day.at('11:30'), end: day.at('12:00') };
    const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(buffered, slot, uniqueEmail('buffered')) });
    expect(created.status, created.text).toBe(201);
    expect((await confirm(created.body)).body).toEqual({ status: 'booked' });
    const row = await proposalRow(new URL(created.body.status_url).pathname.split('/').pop()!);
    const db = await getDb();
    const [booking] = await db.select().from(claims).where(eq(claims.id, row.bookingId!));
    expect(booking).toMatchObject({ status: 'confirmed', bufferBeforeMinutes: 15, bufferAfterMinutes: 15 });
    // An agent's meeting in its after-buffer is refused, naming it.
    const late = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: day.at('12:00'), end: day.at('12:30') } });
    expect(late.status, late.text).toBe(409);
    // (sacred: its requester accepted it.)
    expect(late.body.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: { kind: 'booking', meeting_class: 'external', priority: 50, sacred: true } }]);
    // And the plain type no longer offers 12:00, inside that booking's buffer.
    expect((await times(plain, '11:00', '13:00')).map((t) => t.start)).toEqual([day.at('12:30')]);
  });

  it('an owner approving a request books it with the type\'s buffers, and the approval times keep them', async () => {
    const slug = await meetingType(s, { slug: 'reviewed', duration_minutes: [30], buffer_before_minutes: 30, buffer_after_minutes: 0 });
    const other = nextWeekday('fri', 'UTC');
    const blocker = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: other.at('14:00'), end: other.at('15:00') } });
    expect(blocker.status, blocker.text).toBe(201);
    const slot = { start: other.at('15:30'), end: other.at('16:00') };
    const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(slug, slot, uniqueEmail('reviewed')) });
    expect(created.status, created.text).toBe(201);
    expect((await confirm(created.body)).body).toEqual({ status: 'pending_review' });
    const row = await proposalRow(new URL(created.body.status_url).pathname.split('/').pop()!);
    const owner = await ownerCaller(s);
    // At 15:10 the lower-priority meeting sits in the type's 30-minute buffer before: it would give
    // way, so the approval asks the owner to confirm moving it, as for an overlapping one.
    await expect(owner.proposals.approve({ proposal_id: row.id, start: other.at('15:10'), end: other.at('15:40') })).rejects.toMatchObject({ cause: { code: 'PREEMPTION_NOT_CONFIRMED' } });
    const approved = await owner.proposals.approve({ proposal_id: row.id });
    expect(approved).toMatchObject({ status: 'booked' });
    const db = await getDb();
    const [booking] = await db.select().from(claims).where(eq(claims.id, (await proposalRow(new URL(created.body.status_url).pathname.split('/').pop()!)).bookingId!));
    expect(booking).toMatchObject({ bufferBeforeMinutes: 30, bufferAfterMinutes: 0 });
  });
});
