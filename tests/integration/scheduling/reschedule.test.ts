import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog } from '@/db/schema';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from './fixtures';

/**
 * POST /v1/bookings/{id}/reschedule (docs/api.md "Reschedule"): the booking moves in place,
 * arbitrated as a new booking except that it never conflicts with itself and its minutes
 * leave its old day; refused, it is unchanged.
 */
let admin: TestCustomer;
let owner: string;
let agent: { agentId: string; key: string };
let other: { agentId: string; key: string };
const TZ = 'Europe/Berlin';
const mon = nextWeekday('mon', TZ);
const tue = nextWeekday('tue', TZ);

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ, maxDailyMeetingHours: 3 });
  agent = await newAgent(admin, ['read_availability', 'create_bookings', 'preempt']);
  other = await newAgent(admin, ['read_availability', 'create_bookings', 'preempt']);
});

const book = (key: string, start: string, end: string, cls = 'internal', extra: Record<string, unknown> = {}) =>
  call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: cls, start, end, ...extra } });
const move = (key: string, id: string, start: string, end: string, opts: { reason?: string; idem?: string } = {}) =>
  call('POST', `/v1/bookings/${id}/reschedule`, { key, body: { start, end, ...(opts.reason ? { reason: opts.reason } : {}) }, headers: opts.idem ? { 'idempotency-key': opts.idem } : undefined });
const notificationsOf = async (key: string) => (await call('GET', '/v1/notifications', { key })).body.notifications as { kind: string; data: Record<string, unknown> }[];

describe('reschedule', () => {
  it('moves the booking in place: same id, new time, the old time free again, one audit row with both times', async () => {
    const b = await book(agent.key, mon.at('09:00'), mon.at('09:30'), 'internal', { attendees: [{ email: 'guest@example.com' }] });
    expect(b.status, b.text).toBe(201);
    const id = b.body.booking_id;
    const moved = await move(agent.key, id, mon.at('11:00'), mon.at('11:30'), { reason: 'clash' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ booking_id: id, start: new Date(mon.at('11:00')).toISOString(), status: 'confirmed', attendees: [{ email: 'guest@example.com', response: 'needs_action' }] });
    expect((await call('GET', `/v1/bookings/${id}`, { key: agent.key })).body.start).toBe(new Date(mon.at('11:00')).toISOString());
    // The old time is free: another booking takes it.
    expect((await book(other.key, mon.at('09:00'), mon.at('09:30'))).status).toBe(201);
    const db = await getDb();
    const rows = await db.select().from(auditLog).where(and(eq(auditLog.bookingId, id), eq(auditLog.action, 'booking.reschedule')));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: 'accept', actorKind: 'agent', agentId: agent.agentId, reason: 'clash' });
    expect(rows[0].details).toMatchObject({ from: { start: new Date(mon.at('09:00')).toISOString() }, to: { start: new Date(mon.at('11:00')).toISOString(), start_local: expect.stringContaining('T11:00') } });
  });

  it('never conflicts with itself: a move overlapping its own old time is accepted', async () => {
    const b = await book(agent.key, mon.at('13:00'), mon.at('14:00'));
    const moved = await move(agent.key, b.body.booking_id, mon.at('13:30'), mon.at('14:30'));
    expect(moved.status, moved.text).toBe(200);
  });

  it('moves its minutes from the old day to the new day for the daily limit', async () => {
    // Tuesday: 3 h allowed. 2 h booked plus a 1 h booking that moves within the day stays at 3 h.
    const big = await book(agent.key, tue.at('09:00'), tue.at('11:00'));
    expect(big.status, big.text).toBe(201);
    const hour = await book(agent.key, tue.at('12:00'), tue.at('13:00'));
    expect(hour.status, hour.text).toBe(201);
    expect((await move(agent.key, hour.body.booking_id, tue.at('14:00'), tue.at('15:00'))).status).toBe(200);
    // A new hour does not fit (3 h used) ...
    const refused = expectEnvelope(await book(agent.key, tue.at('16:00'), tue.at('16:30')), 409, 'ARBITRATION_REJECTED');
    expect(refused.message).toContain('maximum daily meeting hours');
    // ... until the hour moves to another day.
    const wed = nextWeekday('wed', TZ);
    expect((await move(agent.key, hour.body.booking_id, wed.at('09:00'), wed.at('10:00'))).status).toBe(200);
    expect((await book(agent.key, tue.at('16:00'), tue.at('16:30'))).status).toBe(201);
  });

  it('refused: the booking is unchanged and the refusal carries reason, conflicts and alternatives', async () => {
    const thu = nextWeekday('thu', TZ);
    const blocker = await book(other.key, thu.at('10:00'), thu.at('11:00'), 'external');
    const b = await book(agent.key, thu.at('09:00'), thu.at('09:30'));
    const err = expectEnvelope(await move(agent.key, b.body.booking_id, thu.at('10:00'), thu.at('10:30')), 409, 'ARBITRATION_REJECTED');
    expect(err.message).toContain('committed by a booking of equal or higher priority');
    const body = (await move(agent.key, b.body.booking_id, thu.at('10:00'), thu.at('10:30'))).body;
    expect(body.alternatives.length).toBeGreaterThan(0);
    expect(blocker.status).toBe(201);
    expect(body.conflicts).toEqual([expect.objectContaining({ kind: 'booking', meeting_class: 'external' })]);
    expect((await call('GET', `/v1/bookings/${b.body.booking_id}`, { key: agent.key })).body.start).toBe(new Date(thu.at('09:00')).toISOString());
    // Its own old slot is not among the conflicts.
    expect(JSON.stringify(body.conflicts)).not.toContain(b.body.booking_id);
  });

  it('preempts what gives way and tells its agent, as a new booking does', async () => {
    const fri = nextWeekday('fri', TZ);
    await notificationsOf(other.key);
    const low = await book(other.key, fri.at('10:00'), fri.at('10:30'), 'focus');
    const b = await book(agent.key, fri.at('09:00'), fri.at('09:30'), 'external');
    const moved = await move(agent.key, b.body.booking_id, fri.at('10:00'), fri.at('10:30'));
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.preempted_booking_ids).toEqual([low.body.booking_id]);
    expect((await call('GET', `/v1/bookings/${low.body.booking_id}`, { key: other.key })).body.status).toBe('preempted');
    expect((await notificationsOf(other.key)).some((n) => n.kind === 'booking.preempted' && n.data.booking_id === low.body.booking_id)).toBe(true);
  });

  it("only the booking's agent or one with manage_customer moves it; the booking's agent hears of someone else's move", async () => {
    const wed = nextWeekday('wed', TZ, 2);
    const b = await book(agent.key, wed.at('09:00'), wed.at('09:30'));
    expectEnvelope(await move(other.key, b.body.booking_id, wed.at('10:00'), wed.at('10:30')), 403, 'permission_denied:manage_customer');
    await notificationsOf(agent.key);
    const moved = await move(admin.key, b.body.booking_id, wed.at('10:00'), wed.at('10:30'), { reason: 'owner asked' });
    expect(moved.status, moved.text).toBe(200);
    const heard = (await notificationsOf(agent.key)).find((n) => n.kind === 'booking.rescheduled');
    expect(heard?.data).toMatchObject({
      booking_id: b.body.booking_id,
      from: { start: new Date(wed.at('09:00')).toISOString(), start_local: expect.stringContaining('T09:00') },
      to: { start: new Date(wed.at('10:00')).toISOString() },
      moved_by: { kind: 'agent', agent_id: admin.agentId },
      reason: 'owner asked',
    });
    // Its own moves are not announced to itself.
    expect((await move(agent.key, b.body.booking_id, wed.at('11:00'), wed.at('11:30'))).status).toBe(200);
    expect((await notificationsOf(agent.key)).filter((n) => n.kind === 'booking.rescheduled')).toHaveLength(0);
  });

  it('a cancelled booking answers 409 BOOKING_NOT_ACTIVE; an unknown one 404', async () => {
    const thu = nextWeekday('thu', TZ, 2);
    const b = await book(agent.key, thu.at('09:00'), thu.at('09:30'));
    expect((await call('POST', `/v1/bookings/${b.body.booking_id}/cancel`, { key: agent.key, body: {} })).status).toBe(200);
    expectEnvelope(await move(agent.key, b.body.booking_id, thu.at('10:00'), thu.at('10:30')), 409, 'BOOKING_NOT_ACTIVE');
    expectEnvelope(await move(agent.key, '01900000-0000-7000-8000-000000000000', thu.at('10:00'), thu.at('10:30')), 404, 'BOOKING_NOT_FOUND');
  });

  it('an Idempotency-Key replays what committed', async () => {
    const fri = nextWeekday('fri', TZ, 2);
    const b = await book(agent.key, fri.at('09:00'), fri.at('09:30'));
    const first = await move(agent.key, b.body.booking_id, fri.at('11:00'), fri.at('11:30'), { idem: 'move-1' });
    expect(first.status, first.text).toBe(200);
    const again = await move(agent.key, b.body.booking_id, fri.at('11:00'), fri.at('11:30'), { idem: 'move-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('PATCH /v1/bookings/{id}', () => {
  it("edits title and description of the agent's own booking, with one booking.update audit row; nothing changed writes nothing", async () => {
    const day = nextWeekday('mon', TZ, 3);
    const b = await book(agent.key, day.at('09:00'), day.at('09:30'), 'internal', { title: 'Old' });
    const res = await call('PATCH', `/v1/bookings/${b.body.booking_id}`, { key: agent.key, body: { title: 'New', description: 'agenda' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ booking_id: b.body.booking_id, title: 'New', description: 'agenda', start: b.body.start });
    expect((await call('PATCH', `/v1/bookings/${b.body.booking_id}`, { key: agent.key, body: { title: 'New' } })).status).toBe(200);
    const db = await getDb();
    const rows = await db.select().from(auditLog).where(and(eq(auditLog.bookingId, b.body.booking_id), eq(auditLog.action, 'booking.update')));
    expect(rows).toHaveLength(1);
    expect(rows[0].details).toEqual({ title: 'New', description: 'agenda' });
  });

  it('refuses another agent without manage_customer (403), a cancelled booking (409) and an empty body (400)', async () => {
    const day = nextWeekday('tue', TZ, 3);
    const b = await book(agent.key, day.at('09:00'), day.at('09:30'));
    expectEnvelope(await call('PATCH', `/v1/bookings/${b.body.booking_id}`, { key: other.key, body: { title: 'x' } }), 403, 'permission_denied:manage_customer');
    expect((await call('PATCH', `/v1/bookings/${b.body.booking_id}`, { key: admin.key, body: { title: 'by admin' } })).status).toBe(200);
    expectEnvelope(await call('PATCH', `/v1/bookings/${b.body.booking_id}`, { key: agent.key, body: {} }), 400, 'invalid_request');
    await call('POST', `/v1/bookings/${b.body.booking_id}/cancel`, { key: agent.key, body: {} });
    expectEnvelope(await call('PATCH', `/v1/bookings/${b.body.booking_id}`, { key: agent.key, body: { title: 'x' } }), 409, 'BOOKING_NOT_ACTIVE');
  });
});
