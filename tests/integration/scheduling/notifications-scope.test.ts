import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { newId } from '@/server/domain/ids';
import { enqueueNotification } from '@/server/domain/notificationService';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from './fixtures';

/**
 * Notifications (booking.preempted, booking.cancelled) drained into the next
 * error envelope and by GET /v1/notifications; cancelling bookings; owner
 * scope of user-scoped agents on every scheduling call.
 */
let admin: TestCustomer;
let owner: string;
let otherOwner: string;
const TZ = 'America/New_York';
const day = nextWeekday('tue', TZ);
const BOOKER = ['create_bookings', 'create_holds', 'read_availability'];

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ });
  otherOwner = await setupOwner(admin, { timeZone: TZ });
});

const book = (key: string, meeting_class: string, start: string, end: string, owner_email = owner) =>
  call('POST', '/v1/bookings', { key, body: { owner_email, meeting_class, start, end } });
const drain = async (key: string) => {
  const res = await call('GET', '/v1/notifications', { key });
  expect(res.status, res.text).toBe(200);
  return res.body.notifications as { id: string; kind: string; created_at: string; data: Record<string, unknown> }[];
};

describe('booking.preempted', () => {
  it('reaches the preempted agent in its next error envelope, once', async () => {
    const low = await newAgent(admin, BOOKER);
    const booked = await book(low.key, 'focus', day.at('09:00'), day.at('10:00'));
    expect(booked.status, booked.text).toBe(201);
    const high = await book(admin.key, 'external', day.at('09:00'), day.at('10:00'));
    expect(high.body.preempted_booking_ids).toEqual([booked.body.booking_id]);
    expect((await call('GET', `/v1/bookings/${high.body.booking_id}`, { key: admin.key })).body.preempted_booking_ids).toEqual([booked.body.booking_id]);
    expect((await call('GET', `/v1/bookings/${booked.body.booking_id}`, { key: low.key })).body.status).toBe('preempted');

    // Any error of that agent carries the queue.
    const err = await call('GET', `/v1/holds/${newId()}`, { key: low.key });
    expectEnvelope(err, 404, 'HOLD_NOT_FOUND');
    expect(err.body.pending_notifications).toHaveLength(1);
    expect(err.body.pending_notifications[0]).toMatchObject({
      kind: 'booking.preempted',
      data: { booking_id: booked.body.booking_id, claim_kind: 'booking', owner_email: owner, start: day.at('09:00'), end: day.at('10:00'), preempted_by_meeting_class: 'external' },
    });
    expect(await drain(low.key)).toEqual([]);
    // Other agents' queues are their own.
    expect((await drain(admin.key)).some((n) => n.data.booking_id === booked.body.booking_id)).toBe(false);
  });

  it('GET /v1/notifications drains it too, also for a preempted hold, oldest first', async () => {
    const low = await newAgent(admin, BOOKER);
    const b = await book(low.key, 'focus', day.at('11:00'), day.at('11:30'));
    const h = await call('POST', '/v1/holds', { key: low.key, body: { owner_email: owner, meeting_class: 'focus', hold_scope: 'candidate', candidate: { start: day.at('12:00'), end: day.at('12:30') } } });
    expect(h.status, h.text).toBe(200);
    expect((await book(admin.key, 'external', day.at('11:00'), day.at('11:30'))).status).toBe(201);
    expect((await book(admin.key, 'external', day.at('12:00'), day.at('12:30'))).status).toBe(201);
    const notes = await drain(low.key);
    expect(notes.map((n) => [n.kind, n.data.claim_kind, n.data.booking_id ?? n.data.hold_id])).toEqual([
      ['booking.preempted', 'booking', b.body.booking_id],
      ['booking.preempted', 'hold', h.body.hold_id],
    ]);
    expect(Date.parse(notes[0].created_at)).toBeLessThanOrEqual(Date.parse(notes[1].created_at));
    expect((await call('GET', `/v1/holds/${h.body.hold_id}`, { key: low.key })).body.status).toBe('preempted');
    expectEnvelope(await call('POST', `/v1/bookings/${h.body.hold_id}/confirm`, { key: low.key, body: { start: day.at('12:00'), end: day.at('12:30') } }), 409, 'HOLD_NOT_ACTIVE');
    expect(await drain(low.key)).toEqual([]);
  });
});

describe('queue size', () => {
  it('hands out at most 50 per envelope or drain, oldest first', async () => {
    const agent = await newAgent(admin, BOOKER);
    const db = await getDb();
    const t0 = Date.now() - 60_000;
    for (let i = 0; i < 55; i++) {
      // each a booking.cancelled as the document describes it (the answers are checked against it)
      const data = { booking_id: `booking-${i}`, owner_email: 'queue@example.com', start: '2030-01-07T09:00:00.000Z', end: '2030-01-07T09:30:00.000Z', start_local: '2030-01-07T09:00:00+00:00', end_local: '2030-01-07T09:30:00+00:00', reason: null };
      await enqueueNotification(db, { customerId: admin.customerId, agentId: agent.agentId, kind: 'booking.cancelled', data, now: new Date(t0 + i * 10) });
    }
    const err = await call('GET', `/v1/bookings/${newId()}`, { key: agent.key });
    expectEnvelope(err, 404, 'BOOKING_NOT_FOUND');
    expect(err.body.pending_notifications.map((n: { data: { booking_id: string } }) => n.data.booking_id)).toEqual(Array.from({ length: 50 }, (_, i) => `booking-${i}`));
    expect((await drain(agent.key)).map((n) => n.data.booking_id)).toEqual([50, 51, 52, 53, 54].map((i) => `booking-${i}`));
    expect(await drain(agent.key)).toEqual([]);
  });
});

describe('cancelling bookings and booking.cancelled', () => {
  it('cancel by another agent notifies the booking agent; a second cancel is 409 BOOKING_NOT_ACTIVE', async () => {
    const maker = await newAgent(admin, BOOKER);
    const canceller = await newAgent(admin, ['create_bookings']);
    const b = await book(maker.key, 'internal', day.at('14:00'), day.at('15:00'));
    expect(b.status).toBe(201);
    const cancelled = await call('POST', `/v1/bookings/${b.body.booking_id}/cancel`, { key: canceller.key, body: { reason: 'owner is ill' } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ booking_id: b.body.booking_id, status: 'cancelled' });
    const again = await call('POST', `/v1/bookings/${b.body.booking_id}/cancel`, { key: canceller.key, body: {} });
    expectEnvelope(again, 409, 'BOOKING_NOT_ACTIVE');
    expect(again.body.pending_notifications).toEqual([]); // the canceller is not told about its own act

    // The maker learns it in its next error envelope ...
    const err = await call('POST', `/v1/bookings/${b.body.booking_id}/cancel`, { key: maker.key, body: {} });
    expectEnvelope(err, 409, 'BOOKING_NOT_ACTIVE');
    expect(err.body.pending_notifications.map((n: { kind: string; data: Record<string, unknown> }) => [n.kind, n.data.booking_id, n.data.reason])).toEqual([
      ['booking.cancelled', b.body.booking_id, 'owner is ill'],
    ]);
    expect(await drain(maker.key)).toEqual([]);
    // ... and the time is free again.
    expect((await book(admin.key, 'internal', day.at('14:00'), day.at('15:00'))).status).toBe(201);
  });

  it('GET /v1/notifications drains booking.cancelled; cancelling one’s own booking notifies nobody', async () => {
    const maker = await newAgent(admin, BOOKER);
    const b1 = await book(maker.key, 'internal', day.at('15:00'), day.at('15:30'));
    const b2 = await book(maker.key, 'internal', day.at('15:30'), day.at('16:00'));
    expect((await call('POST', `/v1/bookings/${b1.body.booking_id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);
    expect((await call('POST', `/v1/bookings/${b2.body.booking_id}/cancel`, { key: maker.key, body: {} })).status).toBe(200);
    const notes = await drain(maker.key);
    expect(notes.map((n) => [n.kind, n.data.booking_id])).toEqual([['booking.cancelled', b1.body.booking_id]]);
    // the owner-local times, as in every other answer about a booking
    expect(notes[0].data).toMatchObject({ start: b1.body.start, end: b1.body.end, start_local: b1.body.start_local, end_local: b1.body.end_local });
  });

  it('unknown, malformed and foreign booking ids are 404 BOOKING_NOT_FOUND; a preempted booking cannot be cancelled', async () => {
    const other = await newCustomer();
    const otherCustOwner = await setupOwner(other, { timeZone: TZ });
    const foreign = await book(other.key, 'internal', day.at('09:00'), day.at('09:30'), otherCustOwner);
    expect(foreign.status).toBe(201);
    for (const id of [newId(), 'bk_123', foreign.body.booking_id]) {
      expectEnvelope(await call('GET', `/v1/bookings/${id}`, { key: admin.key }), 404, 'BOOKING_NOT_FOUND');
      expectEnvelope(await call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: {} }), 404, 'BOOKING_NOT_FOUND');
    }
    const low = await book(admin.key, 'focus', day.at('16:00'), day.at('16:30'));
    expect((await book(admin.key, 'external', day.at('16:00'), day.at('16:30'))).status).toBe(201);
    expectEnvelope(await call('POST', `/v1/bookings/${low.body.booking_id}/cancel`, { key: admin.key, body: {} }), 409, 'BOOKING_NOT_ACTIVE');
  });
});

describe('owner scope of a user-scoped agent', () => {
  it('works on its own owner (owner_email may be omitted) and gets 403 owner_scope_denied on another owner', async () => {
    const scoped = await newAgent(admin, ['read_availability', 'create_holds', 'create_bookings', 'preempt'], `user:${owner}`);
    const d = nextWeekday('wed', TZ);
    const window = { start: d.at('09:00'), end: d.at('12:00') };

    const own = await call('POST', '/v1/availability/search', { key: scoped.key, body: { meeting_class: 'internal', duration_minutes: 30, window } });
    expect(own.status, own.text).toBe(200);
    expect(own.body.owner_email).toBe(owner);
    expect(own.body.time_zone).toBe(TZ);
    const ownHold = await call('POST', '/v1/holds', { key: scoped.key, body: { meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: d.at('09:00'), end: d.at('09:30') } } });
    expect(ownHold.status, ownHold.text).toBe(200);
    expect(ownHold.body.owner_email).toBe(owner);

    const denied = async (method: string, path: string, body?: unknown) => expectEnvelope(await call(method, path, { key: scoped.key, body }), 403, 'owner_scope_denied');
    await denied('POST', '/v1/availability/search', { owner_email: otherOwner, meeting_class: 'internal', duration_minutes: 30, window });
    await denied('POST', '/v1/holds', { owner_email: otherOwner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: d.at('10:00'), end: d.at('10:30') } });
    await denied('POST', '/v1/bookings', { owner_email: otherOwner, meeting_class: 'internal', start: d.at('10:00'), end: d.at('10:30') });
    await denied('POST', '/v1/arbitration/evaluate', { owner_email: otherOwner, meeting_class: 'internal', start: d.at('10:00'), end: d.at('10:30') });
    await denied('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(otherOwner)}`);

    // Another owner's hold and booking (made by the org-wide admin) can be neither read nor used.
    const theirHold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: otherOwner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: d.at('11:00'), end: d.at('11:30') } } });
    const theirBooking = await book(admin.key, 'internal', d.at('13:00'), d.at('13:30'), otherOwner);
    expect(theirHold.status).toBe(200);
    expect(theirBooking.status).toBe(201);
    await denied('GET', `/v1/holds/${theirHold.body.hold_id}`);
    await denied('DELETE', `/v1/holds/${theirHold.body.hold_id}`);
    await denied('POST', `/v1/bookings/${theirHold.body.hold_id}/confirm`, { start: d.at('11:00'), end: d.at('11:30') });
    await denied('GET', `/v1/bookings/${theirBooking.body.booking_id}`);
    await denied('POST', `/v1/bookings/${theirBooking.body.booking_id}/cancel`, {});
    expect((await call('GET', `/v1/holds/${theirHold.body.hold_id}`, { key: admin.key })).body.status).toBe('active');
    expect((await call('GET', `/v1/bookings/${theirBooking.body.booking_id}`, { key: admin.key })).body.status).toBe('confirmed');
  });

  it('permissions are checked per call (permission_denied:<perm>, 403)', async () => {
    const readOnly = await newAgent(admin, ['read_availability']);
    const d = nextWeekday('thu', TZ);
    const slot = { start: d.at('09:00'), end: d.at('09:30') };
    expectEnvelope(await call('POST', '/v1/holds', { key: readOnly.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } }), 403, 'permission_denied:create_holds');
    expectEnvelope(await call('POST', '/v1/bookings', { key: readOnly.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } }), 403, 'permission_denied:create_bookings');
    expectEnvelope(await call('POST', `/v1/bookings/${newId()}/confirm`, { key: readOnly.key, body: slot }), 403, 'permission_denied:create_bookings');
    // An org-wide agent must name the owner.
    const noOwner = await call('POST', '/v1/bookings', { key: admin.key, body: { meeting_class: 'internal', ...slot } });
    expectEnvelope(noOwner, 400, 'invalid_request');
    const unauth = await call('POST', '/v1/bookings', { body: { owner_email: owner, meeting_class: 'internal', ...slot } });
    expectEnvelope(unauth, 401, 'unknown_api_key');
    expect(unauth.body.pending_notifications).toEqual([]);
  });
});
