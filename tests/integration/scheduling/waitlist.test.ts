import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { claims, webhookDeliveries } from '@/db/schema';
import { sweepDueHolds } from '@/server/domain/waitlist/sweep';
import { cancelOwnBooking } from '@/server/domain/weekView';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, ownerIdOf, patchClaim, setupOwner } from './fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * The waitlist (docs/api.md "Waitlist", docs/arbitration.md "Waitlist"): join, list, read, leave;
 * time a cancel, release or expiry frees is offered, in the transaction that frees it, as a hold
 * to the first entry that fits (class priority, then time joined); a lapsed offer goes on.
 */
allowLoopbackOutbound();
let admin: TestCustomer;
let owner: string;
let waiters: { agentId: string; key: string }[];
const TZ = 'UTC';
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ });
  waiters = [];
  for (let i = 0; i < 3; i++) waiters.push(await newAgent(admin, ['create_holds', 'create_bookings', 'read_availability']));
});

const book = async (start: string, end: string, meetingClass = 'internal') => {
  const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: meetingClass, start, end } });
  expect(res.status, res.text).toBe(201);
  return res.body.booking_id as string;
};
const join = (key: string, body: Record<string, unknown>) => call('POST', '/v1/waitlist', { key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, ...body } });
const entry = async (key: string, id: string) => (await call('GET', `/v1/waitlist/${id}`, { key })).body;
const cancel = async (id: string) => expect((await call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);

describe('POST/GET/DELETE /v1/waitlist', () => {
  it('joins, lists, reads and leaves; scoped to the agent', async () => {
    const day = nextWeekday('mon', TZ);
    const [w] = waiters;
    const res = await join(w.key, { window_start: day.at('09:00'), window_end: day.at('12:00') });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'waiting', owner_email: owner, meeting_class: 'internal', duration_minutes: 30, hold_id: null, expires_at: null });
    const list = await call('GET', '/v1/waitlist', { key: w.key });
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(res.body.id);
    expect((await entry(w.key, res.body.id)).status).toBe('waiting');
    // Another agent of the same customer sees nothing of it.
    expectEnvelope(await call('GET', `/v1/waitlist/${res.body.id}`, { key: waiters[1].key }), 404, 'WAITLIST_ENTRY_NOT_FOUND');
    expectEnvelope(await call('DELETE', `/v1/waitlist/${res.body.id}`, { key: waiters[1].key }), 404, 'WAITLIST_ENTRY_NOT_FOUND');
    expect((await call('GET', '/v1/waitlist', { key: waiters[1].key })).body.data.map((e: { id: string }) => e.id)).not.toContain(res.body.id);
    const left = await call('DELETE', `/v1/waitlist/${res.body.id}`, { key: w.key });
    expect([left.status, left.body.status]).toEqual([200, 'cancelled']);
    expect((await call('DELETE', `/v1/waitlist/${res.body.id}`, { key: w.key })).body.status).toBe('cancelled');
    expect((await call('GET', '/v1/waitlist?status=cancelled', { key: w.key })).body.data.map((e: { id: string }) => e.id)).toContain(res.body.id);
  });

  it('refuses a window narrower than the duration, an unknown class and a past expires_at', async () => {
    const day = nextWeekday('mon', TZ);
    expectEnvelope(await join(waiters[0].key, { window_start: day.at('09:00'), window_end: day.at('09:15') }), 422, 'WINDOW_TOO_NARROW');
    expectEnvelope(await join(waiters[0].key, { meeting_class: 'nope', window_start: day.at('09:00'), window_end: day.at('10:00') }), 400, 'INVALID_MEETING_CLASS');
    expectEnvelope(await join(waiters[0].key, { window_start: day.at('09:00'), window_end: day.at('10:00'), expires_at: new Date(Date.now() - 1000).toISOString() }), 400, 'invalid_request');
  });
});

describe('offers', () => {
  it('a cancel offers the freed time to the first entry, in the same transaction, with notification and webhook', async () => {
    const day = nextWeekday('tue', TZ);
    const booking = await book(day.at('10:00'), day.at('11:00'));
    const [w1, w2] = waiters;
    const hook = await call('POST', '/v1/webhooks', { key: w1.key, body: { url: 'http://127.0.0.1:9/waitlist', events: ['waitlist.offered'] } });
    expect(hook.status, hook.text).toBe(201);
    const first = (await join(w1.key, { window_start: day.at('10:00'), window_end: day.at('11:00') })).body;
    const second = (await join(w2.key, { window_start: day.at('10:00'), window_end: day.at('11:00') })).body;
    await cancel(booking);
    const offered = await entry(w1.key, first.id);
    expect(offered.status).toBe('offered');
    const hold = (await call('GET', `/v1/holds/${offered.hold_id}`, { key: w1.key })).body;
    expect(hold).toMatchObject({ status: 'active', held_window: { start: day.at('10:00'), end: day.at('10:30') } });
    // The house's hold TTL: 600 s from the free.
    expect(Date.parse(hold.expires_at) - Date.parse(offered.offered_at)).toBe(600_000);
    const feed = (await call('GET', '/v1/notifications?since=0', { key: w1.key })).body.notifications as { kind: string; data: Record<string, unknown> }[];
    const note = feed.find((n) => n.kind === 'waitlist.offered' && n.data.waitlist_id === first.id);
    expect(note?.data).toMatchObject({ hold_id: offered.hold_id, start: day.at('10:00'), end: day.at('10:30'), expires_at: hold.expires_at });
    const rows = await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hook.body.id));
    expect(rows.map((r) => JSON.parse(r.body).type)).toEqual(['waitlist.offered']);
    // The rest of the hour went to the second waiter (the same free, after the first offer).
    const next = await entry(w2.key, second.id);
    expect(next.status).toBe('offered');
    expect((await call('GET', `/v1/holds/${next.hold_id}`, { key: w2.key })).body.held_window).toMatchObject({ start: day.at('10:30'), end: day.at('11:00') });
    // Confirmed like any hold: the entry is fulfilled.
    const confirmed = await call('POST', `/v1/bookings/${offered.hold_id}/confirm`, { key: w1.key, body: { start: day.at('10:00'), end: day.at('10:30') } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await entry(w1.key, first.id)).status).toBe('fulfilled');
  });

  it('orders by meeting-class priority, then time joined', async () => {
    const day = nextWeekday('wed', TZ);
    const booking = await book(day.at('14:00'), day.at('14:30'));
    const low = (await join(waiters[0].key, { meeting_class: 'focus', window_start: day.at('13:00'), window_end: day.at('16:00') })).body;
    const early = (await join(waiters[1].key, { window_start: day.at('13:00'), window_end: day.at('16:00') })).body;
    const late = (await join(waiters[2].key, { window_start: day.at('13:00'), window_end: day.at('16:00') })).body;
    // The window's other time is taken, so only the freed half hour is offered.
    await book(day.at('13:00'), day.at('14:00'));
    await book(day.at('14:30'), day.at('16:00'));
    await cancel(booking);
    expect((await entry(waiters[1].key, early.id)).status).toBe('offered');
    expect((await entry(waiters[2].key, late.id)).status).toBe('waiting');
    expect((await entry(waiters[0].key, low.id)).status).toBe('waiting');
  });

  it('a released offer goes to the next entry; the released one lapses', async () => {
    const day = nextWeekday('thu', TZ);
    const booking = await book(day.at('09:00'), day.at('09:30'));
    const a = (await join(waiters[0].key, { window_start: day.at('09:00'), window_end: day.at('09:30') })).body;
    const b = (await join(waiters[1].key, { window_start: day.at('09:00'), window_end: day.at('09:30') })).body;
    await cancel(booking);
    const offered = await entry(waiters[0].key, a.id);
    expect(offered.status).toBe('offered');
    expect((await call('DELETE', `/v1/holds/${offered.hold_id}`, { key: waiters[0].key })).status).toBe(200);
    expect((await entry(waiters[0].key, a.id)).status).toBe('lapsed');
    const nextOffer = await entry(waiters[1].key, b.id);
    expect(nextOffer.status).toBe('offered');
    expect(nextOffer.hold_id).not.toBe(offered.hold_id);
  });

  it('an expired offer (swept) goes to the next entry', async () => {
    const day = nextWeekday('thu', TZ);
    const booking = await book(day.at('15:00'), day.at('15:30'));
    const a = (await join(waiters[0].key, { window_start: day.at('15:00'), window_end: day.at('15:30') })).body;
    const b = (await join(waiters[1].key, { window_start: day.at('15:00'), window_end: day.at('15:30') })).body;
    await cancel(booking);
    const offered = await entry(waiters[0].key, a.id);
    await patchClaim(offered.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    expect((await entry(waiters[0].key, a.id)).status).toBe('lapsed');
    expect(await sweepDueHolds(await getDb(), new Date())).toBeGreaterThanOrEqual(1);
    expect((await entry(waiters[1].key, b.id)).status).toBe('offered');
  });

  it('a preemption offers what the preempting claim leaves; a reschedule offers the time it leaves', async () => {
    const day = nextWeekday('mon', TZ, 2);
    const focus = await book(day.at('10:00'), day.at('11:00'), 'focus');
    const a = (await join(waiters[0].key, { window_start: day.at('10:00'), window_end: day.at('11:00') })).body;
    await book(day.at('10:00'), day.at('10:30'), 'external');
    expect((await call('GET', `/v1/bookings/${focus}`, { key: admin.key })).body.status).toBe('preempted');
    const offered = await entry(waiters[0].key, a.id);
    expect(offered.status).toBe('offered');
    expect((await call('GET', `/v1/holds/${offered.hold_id}`, { key: waiters[0].key })).body.held_window).toMatchObject({ start: day.at('10:30'), end: day.at('11:00') });

    const moved = await book(day.at('13:00'), day.at('13:30'));
    const b = (await join(waiters[1].key, { window_start: day.at('13:00'), window_end: day.at('14:00') })).body;
    const res = await call('POST', `/v1/bookings/${moved}/reschedule`, { key: admin.key, body: { start: day.at('15:00'), end: day.at('15:30') } });
    expect(res.status, res.text).toBe(200);
    const second = await entry(waiters[1].key, b.id);
    expect(second.status).toBe('offered');
    expect((await call('GET', `/v1/holds/${second.hold_id}`, { key: waiters[1].key })).body.held_window).toMatchObject({ start: day.at('13:00'), end: day.at('13:30') });
  });

  it("an owner's cancel in the dashboard offers the time too", async () => {
    const day = nextWeekday('tue', TZ, 2);
    const booking = await book(day.at('11:00'), day.at('11:30'));
    const a = (await join(waiters[2].key, { window_start: day.at('11:00'), window_end: day.at('11:30') })).body;
    const actor = { kind: 'owner' as const, ownerId: await ownerIdOf(admin, owner), customerId: admin.customerId, email: owner };
    await cancelOwnBooking(await getDb(), actor, { bookingId: booking, reason: 'travelling' }, new Date());
    expect((await entry(waiters[2].key, a.id)).status).toBe('offered');
  });

  it('offers nothing when no entry fits the freed time', async () => {
    const day = nextWeekday('fri', TZ);
    const booking = await book(day.at('09:00'), day.at('09:30'));
    const longer = (await join(waiters[0].key, { duration_minutes: 60, window_start: day.at('09:00'), window_end: day.at('10:00') })).body;
    const elsewhere = (await join(waiters[1].key, { window_start: day.at('11:00'), window_end: day.at('12:00') })).body;
    await book(day.at('09:30'), day.at('10:00'));
    await cancel(booking);
    expect((await entry(waiters[0].key, longer.id)).status).toBe('waiting');
    expect((await entry(waiters[1].key, elsewhere.id)).status).toBe('waiting');
    const holds = await (await getDb()).select().from(claims).where(eq(claims.agentId, waiters[0].agentId));
    expect(holds.filter((h) => h.startAt.getTime() >= Date.parse(day.at('00:00')) && h.startAt.getTime() < Date.parse(day.at('23:59')))).toEqual([]);
  });
});
