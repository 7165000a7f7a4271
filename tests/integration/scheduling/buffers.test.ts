import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { calendarEvents, calendars, claims } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, directAgents, nextWeekday, ownerIdOf, setupOwner } from './fixtures';

/**
 * Buffers (docs/arbitration.md "Buffers") on every agent surface: a meeting plus its own buffers
 * must not overlap another meeting, and no meeting may lie in another's buffers; buffers may
 * overlap each other. A refusal names the meeting a buffer ran into (`kind: buffer`), and its
 * alternatives keep the buffers.
 */
let admin: TestCustomer;
let agent: string;
const TZ = 'UTC';
const MIN = 60_000;

beforeAll(async () => {
  admin = await newCustomer();
  [{ key: agent }] = await directAgents(admin, 1, ['read_availability', 'create_holds', 'create_bookings']);
  // setupOwner creates the standard classes; these carry buffers.
  await setupOwner(admin, { timeZone: TZ });
  for (const body of [
    { name: 'buffered', priority: 50, buffer_before_minutes: 15, buffer_after_minutes: 15 },
    { name: 'tail', priority: 50, buffer_after_minutes: 30 },
  ]) {
    const res = await call('POST', '/v1/meeting-classes', { key: admin.key, body });
    expect(res.status, res.text).toBe(201);
  }
});

const book = (owner: string, meetingClass: string, start: string, end: string) => call('POST', '/v1/bookings', { key: agent, body: { owner_email: owner, meeting_class: meetingClass, start, end } });
const plainBooking = { kind: 'booking', meeting_class: 'external', priority: 50, sacred: false };

/** Every alternative keeps `gap` minutes from [start, end). */
function keepsClear(alternatives: { start: string; end: string }[], start: string, end: string, gap: number): boolean {
  const s = Date.parse(start) - gap * MIN;
  const e = Date.parse(end) + gap * MIN;
  return alternatives.every((a) => Date.parse(a.end) <= s || Date.parse(a.start) >= e);
}

describe('buffers on bookings', () => {
  it('a buffered meeting next to another is refused, naming it as a buffer conflict; its alternatives keep the buffer; 15 minutes later it is booked', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('mon', TZ);
    expect((await book(owner, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    const refused = await book(owner, 'buffered', day.at('11:00'), day.at('11:30'));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('ARBITRATION_REJECTED');
    expect(refused.body.error.reason).toBe('COUNTER_PROPOSED');
    expect(refused.body.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: plainBooking }]);
    expect(refused.body.alternatives.length).toBeGreaterThan(0);
    expect(keepsClear(refused.body.alternatives, day.at('10:00'), day.at('11:00'), 15)).toBe(true);
    // Each alternative is bookable as offered.
    const alt = refused.body.alternatives[0];
    expect((await book(owner, 'buffered', alt.start, alt.end)).status).toBe(201);
  });

  it('a meeting without buffers may not sit in another meeting\'s buffer, and buffers may overlap each other', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('tue', TZ);
    const first = await book(owner, 'buffered', day.at('13:00'), day.at('13:30'));
    expect(first.status, first.text).toBe(201);
    const inBuffer = await book(owner, 'external', day.at('13:30'), day.at('14:00'));
    expect(inBuffer.status).toBe(409);
    expect(inBuffer.body.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: { kind: 'booking', meeting_class: 'buffered', priority: 50, sacred: false } }]);
    const before = await book(owner, 'external', day.at('12:00'), day.at('12:50'));
    expect(before.status).toBe(409);
    expect(before.body.conflicts).toEqual([{ kind: 'buffer', side: 'after', meeting: { kind: 'booking', meeting_class: 'buffered', priority: 50, sacred: false } }]);
    expect((await book(owner, 'external', day.at('13:45'), day.at('14:15'))).status).toBe(201);
    // 14:30 is 15 minutes after 14:15: its own 15-minute buffer ends where that meeting does.
    expect((await book(owner, 'buffered', day.at('14:30'), day.at('15:00'))).status).toBe(201);
    // Two buffered meetings 15 minutes apart: their buffers overlap, which is allowed.
    expect((await book(owner, 'buffered', day.at('15:15'), day.at('15:45'))).status).toBe(201);
    // The stored claims keep their buffers.
    const db = await getDb();
    const rows = await db.select().from(claims).where(and(eq(claims.ownerId, await ownerIdOf(admin, owner)), eq(claims.status, 'confirmed')));
    expect(rows.filter((r) => r.bufferBeforeMinutes === 15 && r.bufferAfterMinutes === 15)).toHaveLength(3);
  });

  it('evaluate answers the same buffer conflict without booking', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('wed', TZ);
    expect((await book(owner, 'tail', day.at('09:00'), day.at('10:00'))).status).toBe(201);
    const evaluated = await call('POST', '/v1/arbitration/evaluate', { key: agent, body: { owner_email: owner, meeting_class: 'external', start: day.at('10:15'), end: day.at('10:45') } });
    expect(evaluated.status, evaluated.text).toBe(200);
    expect(evaluated.body).toMatchObject({ outcome: 'counter_propose', conflicts: [{ kind: 'buffer', side: 'before', meeting: { kind: 'booking', meeting_class: 'tail' } }] });
  });
});

describe('buffers in searches, holds, confirms and moves', () => {
  it('search offers no slot within a buffer, and the slot it offers next to a meeting is accepted by a booking', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('thu', TZ);
    expect((await book(owner, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    const search = (meetingClass: string) =>
      call('POST', '/v1/availability/search', { key: agent, body: { owner_email: owner, meeting_class: meetingClass, duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('12:00') } } });
    const plain = await search('external');
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.slots.map((s: { start: string }) => s.start)).toEqual([day.at('09:00'), day.at('09:15'), day.at('09:30'), day.at('11:00'), day.at('11:15'), day.at('11:30')]);
    const buffered = await search('buffered');
    expect(buffered.body.slots.map((s: { start: string }) => s.start)).toEqual([day.at('09:00'), day.at('09:15'), day.at('11:15'), day.at('11:30')]);
    const last = buffered.body.slots.at(-2);
    expect((await book(owner, 'buffered', last.start, last.end)).status).toBe(201);
  });

  it('a candidate hold is refused in a buffer; a window hold takes only time clear of buffers', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('fri', TZ);
    expect((await book(owner, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    expect((await book(owner, 'external', day.at('12:00'), day.at('17:00'))).status).toBe(201);
    const candidate = await call('POST', '/v1/holds', { key: agent, body: { owner_email: owner, meeting_class: 'buffered', hold_scope: 'candidate', candidate: { start: day.at('09:30'), end: day.at('09:50') } } });
    expect(candidate.status, candidate.text).toBe(409);
    expect(candidate.body.conflicts).toEqual([{ kind: 'buffer', side: 'after', meeting: plainBooking }]);
    const window = await call('POST', '/v1/holds', {
      key: agent,
      body: { owner_email: owner, meeting_class: 'buffered', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('10:30'), end: day.at('13:00') } },
    });
    expect(window.status, window.text).toBe(200);
    // The free stretch 11:00-12:00 less 15 minutes either side.
    expect(window.body.held_window).toMatchObject({ start: day.at('11:15'), end: day.at('11:45') });
  });

  it('a confirm naming a buffered class next to a meeting is refused with the buffer conflict', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('mon', TZ, 2);
    expect((await book(owner, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    const slot = { start: day.at('11:00'), end: day.at('11:30') };
    const hold = await call('POST', '/v1/holds', { key: agent, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'candidate', candidate: slot } });
    expect(hold.status, hold.text).toBe(200);
    const refused = await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: agent, body: { ...slot, meeting_class: 'buffered' } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: plainBooking }]);
    const confirmed = await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: agent, body: slot });
    expect(confirmed.status, confirmed.text).toBe(200);
  });

  it('a move keeps the booking\'s buffers: refused next to a meeting, accepted clear of it', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('tue', TZ, 2);
    expect((await book(owner, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    const moving = await book(owner, 'buffered', day.at('14:00'), day.at('14:30'));
    expect(moving.status).toBe(201);
    const move = (start: string, end: string) => call('POST', `/v1/bookings/${moving.body.booking_id}/reschedule`, { key: agent, body: { start, end } });
    const refused = await move(day.at('11:05'), day.at('11:35'));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: plainBooking }]);
    expect(keepsClear(refused.body.alternatives, day.at('10:00'), day.at('11:00'), 15)).toBe(true);
    // Its own old time is never in its way, buffers included.
    expect((await move(day.at('14:10'), day.at('14:40'))).status).toBe(200);
    const moved = await move(day.at('11:15'), day.at('11:45'));
    expect(moved.status, moved.text).toBe(200);
  });
});

describe('buffers across owners and provider calendars', () => {
  it('a collective search keeps every owner\'s buffers, and a group booking in one owner\'s buffer is refused naming it', async () => {
    const a = await setupOwner(admin, { timeZone: TZ });
    const b = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('wed', TZ, 2);
    expect((await book(b, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    const search = await call('POST', '/v1/availability/search', {
      key: agent,
      body: { owner_emails: [a, b], meeting_class: 'buffered', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('12:00') } },
    });
    expect(search.status, search.text).toBe(200);
    expect(search.body.slots.map((s: { start: string }) => s.start)).toEqual([day.at('09:00'), day.at('09:15'), day.at('11:15'), day.at('11:30')]);
    const group = await call('POST', '/v1/bookings', { key: agent, body: { owner_emails: [a, b], meeting_class: 'buffered', start: day.at('11:00'), end: day.at('11:30') } });
    expect(group.status, group.text).toBe(409);
    expect(JSON.stringify(group.body)).toContain('"kind":"buffer"');
    const ok = await call('POST', '/v1/bookings', { key: agent, body: { owner_emails: [a, b], meeting_class: 'buffered', start: search.body.slots[2].start, end: search.body.slots[2].end } });
    expect(ok.status, ok.text).toBe(201);
  });

  it('a pool picks a member whose meetings keep clear of the buffers, and a booking is refused when no member is clear', async () => {
    const a = await setupOwner(admin, { timeZone: TZ });
    const b = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('fri', TZ, 2);
    const pool = await call('POST', '/v1/pools', { key: admin.key, body: { name: `buffers-${Date.now()}`, members: [{ owner_email: a, weight: 1 }, { owner_email: b, weight: 1 }] } });
    expect(pool.status, pool.text).toBe(201);
    expect((await book(a, 'external', day.at('10:00'), day.at('11:00'))).status).toBe(201);
    const viaPool = () => call('POST', '/v1/bookings', { key: agent, body: { pool: pool.body.pool_id, meeting_class: 'buffered', start: day.at('11:00'), end: day.at('11:30') } });
    const first = await viaPool();
    expect(first.status, first.text).toBe(201);
    expect(first.body.owner_email).toBe(b);
    // Now b has a buffered meeting there and a has its 10:00 meeting 0 minutes before: nobody is clear.
    const second = await viaPool();
    expect(second.status, second.text).toBe(409);
  });

  it('provider busy time gets no buffers unless the owner asks for them (buffer_external_events)', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('thu', TZ, 2);
    const db = await getDb();
    const ownerId = await ownerIdOf(admin, owner);
    const calendarId = newId();
    await db.insert(calendars).values({ id: calendarId, customerId: admin.customerId, ownerId, type: 'fake', displayName: 'Fake', status: 'active', lastSyncedAt: new Date() });
    await db.insert(calendarEvents).values({ id: newId(), calendarId, ownerId, resource: 'r1', uid: 'busy-1', startAt: new Date(day.at('10:00')), endAt: new Date(day.at('11:00')) });
    const evaluate = () => call('POST', '/v1/arbitration/evaluate', { key: agent, body: { owner_email: owner, meeting_class: 'buffered', start: day.at('11:00'), end: day.at('11:30') } });
    expect((await evaluate()).body.outcome).toBe('accept');
    const nineToFive = [{ start: '09:00', end: '17:00' }];
    const rules = await call('PUT', '/v1/schedule-rules', {
      key: admin.key,
      body: { owner_email: owner, working_hours: { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive }, buffer_external_events: true },
    });
    expect(rules.status, rules.text).toBe(200);
    expect(rules.body.buffer_external_events).toBe(true);
    const refused = await evaluate();
    // Provider busy time is sacred: its buffer refuses as the event itself would.
    expect(refused.body).toMatchObject({ outcome: 'reject', reason: 'SACRED_MEETING' });
    expect(refused.body.conflicts).toEqual([{ kind: 'buffer', side: 'before', meeting: { kind: 'calendar_event', sacred: true } }]);
  });
});
