import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { enqueueNotification } from '@/server/domain/notificationService';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call } from './fixtures';

/** Notifications that cannot be lost (docs/api.md "Notifications"): seq and GET /v1/notifications?since=. */
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

describe('GET /v1/notifications?since=<seq>', () => {
  it('recovers an item delivered inside an unrelated error body that the caller dropped', async () => {
    const db = await getDb();
    // What the agent has seen so far: nothing pending; remember a starting point.
    const before = await call('GET', '/v1/notifications', { key: admin.key });
    expect(before.status, before.text).toBe(200);
    await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'booking.cancelled', data: { booking_id: 'b0', owner_email: 'queue@example.com', start: '2030-01-07T09:00:00.000Z', end: '2030-01-07T09:30:00.000Z', start_local: '2030-01-07T09:00:00+00:00', end_local: '2030-01-07T09:30:00+00:00', reason: null }, now: new Date(Date.now() - 1000) });
    const first = (await call('GET', '/v1/notifications', { key: admin.key })).body.notifications;
    expect(first).toHaveLength(1);
    const lastSeen: number = first[0].seq;
    expect(Number.isInteger(lastSeen)).toBe(true);

    await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'hold.expired', data: { hold_id: 'h', start: '2030-01-07T10:00:00.000Z', end: '2030-01-07T10:30:00.000Z' } });
    const lost = await call('GET', '/v1/no-such-endpoint', { key: admin.key });
    expectEnvelope(lost, 404, 'not_found');
    expect(lost.body.pending_notifications).toHaveLength(1); // delivered here, and dropped by the caller
    expect((await call('GET', '/v1/notifications', { key: admin.key })).body.notifications).toEqual([]); // gone from the queue

    const recovered = await call('GET', `/v1/notifications?since=${lastSeen}`, { key: admin.key });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body.notifications).toEqual([lost.body.pending_notifications[0]]);
    expect(recovered.body.notifications[0]).toMatchObject({ kind: 'hold.expired', seq: expect.any(Number) });
    expect(recovered.body.notifications[0].seq).toBeGreaterThan(lastSeen);
    // since=0 returns both, in sequence order; the read changes nothing.
    const all = await call('GET', '/v1/notifications?since=0', { key: admin.key });
    expect(all.body.notifications.map((n: { seq: number }) => n.seq)).toEqual([lastSeen, recovered.body.notifications[0].seq]);
  });

  it('never returns another agent\'s items and rejects a bad since', async () => {
    const other = await newCustomer();
    const res = await call('GET', '/v1/notifications?since=0', { key: other.key });
    expect(res.body.notifications).toEqual([]);
    expectEnvelope(await call('GET', '/v1/notifications?since=-1', { key: admin.key }), 400, 'invalid_request');
  });
});
