import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { idempotencyRecords, notifications, owners } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { enqueueNotification } from '@/server/domain/notificationService';
import { requestFingerprint } from '@/server/http/idempotency';
import { api, expectEnvelope, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

async function ownersNamed(email: string) {
  const db = await getDb();
  return db.select().from(owners).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, email)));
}

/** What a request that claimed the key looks like while it runs: an in-flight record whose lease ends in `leaseMs`. */
async function claimKeyInFlight(key: string, body: object, leaseMs: number) {
  await (await getDb()).insert(idempotencyRecords).values({
    id: newId(),
    agentId: admin.agentId,
    method: 'POST',
    path: '/v1/owners',
    key,
    fingerprint: requestFingerprint(body, ''),
    state: 'in_flight',
    lockedUntil: new Date(Date.now() + leaseMs),
    expiresAt: new Date(Date.now() + 86_400_000),
  });
}

describe('Idempotency-Key', () => {
  it('replays the stored status and body with Idempotent-Replayed, without a second effect', async () => {
    const email = uniqueEmail();
    const key = `k-${newId()}`;
    const body = { email, time_zone: 'Europe/Berlin' };
    const first = await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // same body, keys in another order: same canonical request
    const again = await api('POST', '/v1/owners', { key: admin.key, body: { time_zone: 'Europe/Berlin', email }, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await ownersNamed(email)).toHaveLength(1);
  });

  it('answers 422 IDEMPOTENCY_CONFLICT when the key is reused with another body', async () => {
    const key = `k-${newId()}`;
    expect((await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail(), time_zone: 'UTC' }, idempotencyKey: key })).status).toBe(201);
    expectEnvelope(await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail(), time_zone: 'UTC' }, idempotencyKey: key }), 422, 'IDEMPOTENCY_CONFLICT');
  });

  it('answers 409 IDEMPOTENCY_IN_FLIGHT while a request with the key is running', async () => {
    const key = `k-${newId()}`;
    const body = { email: uniqueEmail(), time_zone: 'UTC' };
    // A request that claimed the key and is still running (its lease is live).
    await claimKeyInFlight(key, body, 60_000);
    expectEnvelope(await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key }), 409, 'IDEMPOTENCY_IN_FLIGHT');
    expect(await ownersNamed(body.email)).toHaveLength(0);
  });

  it('takes over a key whose request died (lease expired) and runs it once', async () => {
    const key = `k-${newId()}`;
    const body = { email: uniqueEmail(), time_zone: 'UTC' };
    // A request that claimed the key and died: its lease ran out a second ago.
    await claimKeyInFlight(key, body, -1_000);
    expect((await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key })).status).toBe(201);
    const replay = await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await ownersNamed(body.email)).toHaveLength(1);
  });

  it('stores 4xx outcomes and replays them, with the current notification queue', async () => {
    const key = `k-${newId()}`;
    const body = { email: uniqueEmail(), time_zone: 'Mars/Olympus' };
    const first = await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key });
    expectEnvelope(first, 400, 'INVALID_TIME_ZONE');
    const again = await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key });
    expectEnvelope(again, 400, 'INVALID_TIME_ZONE');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a 4xx stores its answer and hands out the pending notifications once, in one statement (docs/api.md "Idempotency")', async () => {
    const db = await getDb();
    const now = new Date();
    for (const hour of [9, 10]) {
      const data = { hold_id: newId(), start: new Date(Date.UTC(2030, 0, 7, hour)).toISOString(), end: new Date(Date.UTC(2030, 0, 7, hour + 1)).toISOString() };
      await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'hold.expired', data, now, actor: { kind: 'system' } });
    }
    const queued = await db.select({ id: notifications.id }).from(notifications).where(and(eq(notifications.agentId, admin.agentId), isNull(notifications.deliveredAt)));
    expect(queued).toHaveLength(2);
    const key = `k-${newId()}`;
    const body = { email: uniqueEmail(), time_zone: 'Mars/Olympus' };
    const first = await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key });
    expectEnvelope(first, 400, 'INVALID_TIME_ZONE');
    expect((first.body.pending_notifications as { id: string }[]).map((n) => n.id).sort()).toEqual(queued.map((q) => q.id).sort());
    const [record] = await db.select().from(idempotencyRecords).where(and(eq(idempotencyRecords.agentId, admin.agentId), eq(idempotencyRecords.key, key)));
    expect(record).toMatchObject({ state: 'done', responseStatus: 400, lockedUntil: null });
    const { pending_notifications: answered, ...stored } = first.body as Record<string, unknown>;
    expect(answered).toHaveLength(2);
    expect(JSON.parse(record.responseBody!)).toEqual(stored); // stored without the queue
    const again = await api('POST', '/v1/owners', { key: admin.key, body, idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...stored, pending_notifications: [] }); // handed out once
  });

  it('scopes keys per agent and path', async () => {
    const other = await newCustomer();
    const key = `k-${newId()}`;
    expect((await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail(), time_zone: 'UTC' }, idempotencyKey: key })).status).toBe(201);
    // same key, another agent: independent
    expect((await api('POST', '/v1/owners', { key: other.key, body: { email: uniqueEmail(), time_zone: 'UTC' }, idempotencyKey: key })).status).toBe(201);
    // same key, another path: independent
    expect((await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: `c-${newId()}`, priority: 1 }, idempotencyKey: key })).status).toBe(201);
  });

  it('never stores a minted API key; a replay answers api_key null', async () => {
    const key = `k-${newId()}`;
    const first = await api('POST', `/v1/agents/${admin.agentId}/keys`, { key: admin.key, body: { name: 'idem' }, idempotencyKey: key });
    expect(first.body.api_key).toMatch(/^ak_/);
    const replay = await api('POST', `/v1/agents/${admin.agentId}/keys`, { key: admin.key, body: { name: 'idem' }, idempotencyKey: key });
    expect(replay.body).toMatchObject({ key_id: first.body.key_id, api_key: null });
    const db = await getDb();
    const rows = await db.select().from(idempotencyRecords).where(eq(idempotencyRecords.key, key));
    expect(JSON.stringify(rows)).not.toContain(first.body.api_key);
  });

  it('rejects a malformed Idempotency-Key with 400', async () => {
    expectEnvelope(await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail(), time_zone: 'UTC' }, idempotencyKey: 'x'.repeat(300) }), 400, 'invalid_request');
  });
});
