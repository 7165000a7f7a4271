import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectEnvelope, newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { nextWeekday, setupOwner } from './fixtures';

let admin: TestCustomer;
let owner: string;
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
});

describe('search -> hold -> confirm', () => {
  it('finds slots, holds one, confirms it, and the slot is gone from search', async () => {
    const day = nextWeekday('mon', 'Europe/Berlin');
    const window = { start: day.at('09:00'), end: day.at('12:00') };
    const search = await api('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window } });
    expect(search.status, search.text).toBe(200);
    expect(search.body.time_zone).toBe('Europe/Berlin');
    expect(search.body.slots[0]).toMatchObject({ start: day.at('09:00'), end: day.at('09:30'), preempts: false });

    const hold = await api('POST', '/v1/holds', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: search.body.slots[0].start, end: search.body.slots[0].end } },
      idempotencyKey: `hold-${owner}`,
    });
    expect(hold.status, hold.text).toBe(200);
    expect(hold.body).toMatchObject({ hold_scope: 'candidate', held_window: { start: day.at('09:00'), end: day.at('09:30') }, resolved_calendar_type: 'internal', status: 'active' });
    expect(hold.body.expires_in_seconds).toBeGreaterThan(590);

    const confirm = await api('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, {
      key: admin.key,
      body: { start: day.at('09:00'), end: day.at('09:30'), title: 'Intro', attendees: [{ email: 'guest@partner.example' }] },
    });
    expect(confirm.status, confirm.text).toBe(200);
    expect(confirm.body).toMatchObject({ hold_id: hold.body.hold_id, status: 'confirmed', meeting_class: 'internal', title: 'Intro' });

    const again = await api('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window } });
    expect(again.body.slots[0].start).toBe(day.at('09:30'));
    expectEnvelope(await api('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('09:00'), end: day.at('09:30') } }), 409, 'HOLD_ALREADY_PROMOTED');
    expect((await api('GET', `/v1/holds/${hold.body.hold_id}`, { key: admin.key })).body.status).toBe('promoted');
    expect((await api('GET', `/v1/bookings/${confirm.body.booking_id}`, { key: admin.key })).body.booking_id).toBe(confirm.body.booking_id);
  });

  it('books directly, counter-proposes a taken slot, preempts lower priority with permission', async () => {
    const day = nextWeekday('tue', 'Europe/Berlin');
    const slot = { start: day.at('10:00'), end: day.at('11:00') };
    const low = await api('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'focus', ...slot } });
    expect(low.status, low.text).toBe(201);
    const same = await api('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'focus', ...slot } });
    const err = expectEnvelope(same, 409, 'ARBITRATION_REJECTED');
    expect(err.reason).toBe('COUNTER_PROPOSED');
    expect(same.body.alternatives.length).toBeGreaterThan(0);
    expect(same.body.alternatives[0].reason_code).toBe('capacity_conflict');

    const noPreempt = await newAgent(admin, ['create_bookings']);
    const denied = await api('POST', '/v1/bookings', { key: noPreempt.key, body: { owner_email: owner, meeting_class: 'external', ...slot } });
    expect(expectEnvelope(denied, 409, 'ARBITRATION_REJECTED').reason).toBe('PERMISSION_DENIED_PREEMPT');

    const high = await api('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', ...slot } });
    expect(high.status, high.text).toBe(201);
    expect(high.body.preempted_booking_ids).toEqual([low.body.booking_id]);
    expect((await api('GET', `/v1/bookings/${low.body.booking_id}`, { key: admin.key })).body.status).toBe('preempted');
    const notes = await api('GET', '/v1/notifications', { key: admin.key });
    expect(notes.body.notifications.map((n: { kind: string }) => n.kind)).toContain('booking.preempted');

    const audit = await api('GET', `/v1/audit-log?owner_email=${encodeURIComponent(owner)}&action=booking.create&limit=5`, { key: admin.key });
    expect(audit.status).toBe(200);
    expect(audit.body.entries[0]).toMatchObject({ action: 'booking.create', outcome: 'accept', preempted_booking_ids: [low.body.booking_id] });
  });

  it('holds the earliest free stretch of a window', async () => {
    const day = nextWeekday('wed', 'Europe/Berlin');
    await api('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('09:00'), end: day.at('10:00') } });
    const hold = await api('POST', '/v1/holds', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('11:00') }, ttl_seconds: 60 },
    });
    expect(hold.status, hold.text).toBe(200);
    expect(hold.body.held_window).toMatchObject({ start: day.at('10:00'), end: day.at('11:00') });
    expectEnvelope(
      await api('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('10:00'), end: day.at('11:00') } }),
      422,
      'SLOT_OUTSIDE_HOLD',
    );
    const ok = await api('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('10:15'), end: day.at('10:45') } });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('idempotent answers of claims', () => {
  it('stores the answer of a keyed hold, confirm and booking with the claim, and replays exactly that text', async () => {
    const { getDb } = await import('@/server/db');
    const { idempotencyRecords } = await import('@/db/schema');
    const { and, eq } = await import('drizzle-orm');
    const db = await getDb();
    const day = nextWeekday('thu', 'Europe/Berlin');
    const stored = async (path: string, key: string) =>
      (await db.select().from(idempotencyRecords).where(and(eq(idempotencyRecords.agentId, admin.agentId), eq(idempotencyRecords.path, path), eq(idempotencyRecords.key, key))))[0];

    const holdKey = `h-${uniqueEmail()}`;
    const hold = await api('POST', '/v1/holds', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('14:00'), end: day.at('14:30') } },
      idempotencyKey: holdKey,
    });
    expect(hold.status, hold.text).toBe(200);
    expect(await stored('/v1/holds', holdKey)).toMatchObject({ state: 'done', responseStatus: 200, responseBody: hold.text, lockedUntil: null });

    const confirmKey = `c-${uniqueEmail()}`;
    const confirmPath = `/v1/bookings/${hold.body.hold_id}/confirm`;
    const confirm = await api('POST', confirmPath, { key: admin.key, body: { start: day.at('14:00'), end: day.at('14:30') }, idempotencyKey: confirmKey });
    expect(confirm.status, confirm.text).toBe(200);
    expect(await stored(confirmPath, confirmKey)).toMatchObject({ state: 'done', responseStatus: 200, responseBody: confirm.text });

    const bookingKey = `b-${uniqueEmail()}`;
    const body = { owner_email: owner, meeting_class: 'internal', start: day.at('15:00'), end: day.at('15:30') };
    const booking = await api('POST', '/v1/bookings', { key: admin.key, body, idempotencyKey: bookingKey });
    expect(booking.status, booking.text).toBe(201);
    expect(await stored('/v1/bookings', bookingKey)).toMatchObject({ state: 'done', responseStatus: 201, responseBody: booking.text });
    const replay = await api('POST', '/v1/bookings', { key: admin.key, body, idempotencyKey: bookingKey });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(booking.text);

    // A rejection is stored after its transaction, with its envelope (no pending_notifications).
    const rejectKey = `r-${uniqueEmail()}`;
    const rejected = await api('POST', '/v1/bookings', { key: admin.key, body, idempotencyKey: rejectKey });
    expect(rejected.status, rejected.text).toBe(409);
    expect(await stored('/v1/bookings', rejectKey)).toMatchObject({ state: 'done', responseStatus: 409 });
  });
});
