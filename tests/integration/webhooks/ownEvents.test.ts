import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { webhookDeliveries } from '@/db/schema';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * Own events (docs/webhooks.md "Own events"): an agent's own reschedule and cancel reach the
 * webhook endpoints that ask for them (include_own) and the notification feed read with
 * include_own, never the pending queue; every event names its actor.
 */
allowLoopbackOutbound();
let admin: TestCustomer;
let owner: string;
let agent: { agentId: string; key: string };
const day = nextWeekday('wed', 'UTC', 2);

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { workingHours: everyDay('08:00', '18:00') });
  agent = await newAgent(admin, ['read_availability', 'create_bookings']);
});

type Item = { seq: number; kind: string; data: Record<string, unknown> };
const feed = async (query: string) => {
  const res = await call('GET', `/v1/notifications${query}`, { key: agent.key });
  expect(res.status, res.text).toBe(200);
  return res.body.notifications as Item[];
};
const outbox = async (endpointId: string) =>
  (await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

describe('own events', () => {
  it("reach include_own endpoints and the include_own feed, never the pending queue; every event names its actor", async () => {
    const events = ['booking.created', 'booking.rescheduled', 'booking.cancelled'];
    const mine = await call('POST', '/v1/webhooks', { key: agent.key, body: { url: 'http://127.0.0.1:9/own', events, include_own: true } });
    const plain = await call('POST', '/v1/webhooks', { key: agent.key, body: { url: 'http://127.0.0.1:9/plain', events } });
    expect([mine.status, mine.body.include_own], mine.text).toEqual([201, true]);
    expect([plain.status, plain.body.include_own], plain.text).toEqual([201, false]);
    const start = (await feed('?since=0&include_own=true')).at(-1)?.seq ?? 0;

    const booked = await call('POST', '/v1/bookings', { key: agent.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('09:00'), end: day.at('09:30') } });
    expect(booked.status, booked.text).toBe(201);
    const id = booked.body.booking_id;
    expect((await call('POST', `/v1/bookings/${id}/reschedule`, { key: agent.key, body: { start: day.at('10:00'), end: day.at('10:30'), reason: 'mine' } })).status).toBe(200);
    expect((await call('POST', `/v1/bookings/${id}/cancel`, { key: agent.key, body: { reason: 'done' } })).status).toBe(200);

    const self = { kind: 'agent', agent_id: agent.agentId };
    const own = await outbox(mine.body.id);
    expect(own.map((e) => e.type)).toEqual(events);
    for (const e of own) expect(e.data.actor).toEqual(self);
    expect(own[1].data).toMatchObject({ booking_id: id, moved_by: self, reason: 'mine' });
    expect((await outbox(plain.body.id)).map((e) => e.type)).toEqual(['booking.created']);

    // The pending queue and a plain read skip them; include_own reads them.
    expect((await feed('')).filter((n) => n.data.booking_id === id)).toEqual([]);
    expect((await feed(`?since=${start}`)).filter((n) => n.data.booking_id === id)).toEqual([]);
    const read = (await feed(`?since=${start}&include_own=true`)).filter((n) => n.data.booking_id === id);
    expect(read.map((n) => [n.kind, n.data.actor])).toEqual([
      ['booking.rescheduled', self],
      ['booking.cancelled', self],
    ]);
    const refused = expectEnvelope(await call('GET', '/v1/notifications?include_own=true', { key: agent.key }), 400, 'invalid_request');
    expect(refused.details.fields[0].path).toBe('query.include_own');

    // Switched off: no more own events there.
    const patched = await call('PATCH', `/v1/webhooks/${mine.body.id}`, { key: agent.key, body: { include_own: false } });
    expect([patched.status, patched.body.include_own]).toEqual([200, false]);
  });

  it("someone else's change is announced as before, naming who made it", async () => {
    const booked = await call('POST', '/v1/bookings', { key: agent.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('13:00'), end: day.at('13:30') } });
    expect(booked.status, booked.text).toBe(201);
    await feed('');
    expect((await call('POST', `/v1/bookings/${booked.body.booking_id}/reschedule`, { key: admin.key, body: { start: day.at('14:00'), end: day.at('14:30') } })).status).toBe(200);
    expect((await call('POST', `/v1/bookings/${booked.body.booking_id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);
    const items = (await feed('')).filter((n) => n.data.booking_id === booked.body.booking_id);
    expect(items.map((n) => [n.kind, n.data.actor])).toEqual([
      ['booking.rescheduled', { kind: 'agent', agent_id: admin.agentId }],
      ['booking.cancelled', { kind: 'agent', agent_id: admin.agentId }],
    ]);
  });
});
