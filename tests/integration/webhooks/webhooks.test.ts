import http from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb, getDbHandle } from '@/server/db';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';
import { deliverDueWebhooks, DELIVERED_RETENTION_MS, sweepDeliveredWebhooks, type DeliveryOptions } from '@/server/domain/webhooks/delivery';
import { enqueueNotification } from '@/server/domain/notificationService';
import { startWebhookWorker, type WorkerOptions } from '@/server/domain/webhooks/worker';
import { leaseEndpointHead, recordDelivered, WEBHOOK_OUTBOX_CHANNEL } from '@/db/hot/webhooks';
import { recordWebhookEvent } from '@/server/domain/webhooks/outbox';
import { newId } from '@/server/domain/ids';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { allowLoopbackOutbound, connectionCounter, withOutboundSetting } from '../../helpers/outbound';
import { documentedVerifier, startReceiver } from './receiver';

/**
 * Webhooks (docs/webhooks.md): outbox rows written with the event, signed deliveries the
 * documented snippet verifies, backoff, per-endpoint order, automatic disable, SSRF refusal.
 * The worker is driven pass by pass with a clock moved forward by hours, so nothing waits.
 * A pass delivers only this file's customer's rows (other files run beside it on one database), and
 * every test deletes its endpoints (afterEach), so a pass only sees this test's rows.
 */
allowLoopbackOutbound();
let admin: TestCustomer;
let owner: string;
const HOUR = 3_600_000;
const day = nextWeekday('tue', 'UTC');
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin);
});

afterEach(async () => {
  while (closers.length) await closers.pop()!();
  // A stopped worker's last delivery may still be recording its result: on PostgreSQL the
  // cascade to its deliveries can then meet it in a deadlock, which is retried.
  const db = await getDb();
  for (let attempt = 1; ; attempt++) {
    try {
      await db.delete(webhookEndpoints).where(eq(webhookEndpoints.customerId, admin.customerId));
      break;
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
      if (code !== '40P01' || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
});

async function receiver(answer?: (n: number) => number) {
  const r = await startReceiver(answer);
  closers.push(r.close);
  return r;
}

async function register(key: string, url: string, events: string[]) {
  const res = await call('POST', '/v1/webhooks', { key, body: { url, events } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

/** One worker pass at now + offset (base delay 60 s, jitter factor fixed at 0.5). */
async function pass(offsetMs = 0, opts: Partial<DeliveryOptions> = {}) {
  return deliverDueWebhooks(await getDb(), { allowPrivate: true, retryBaseMs: 60_000, random: () => 0, notifyDisabled: enqueueNotification, customerId: admin.customerId, ...opts }, () => new Date(Date.now() + offsetMs));
}

async function rowsOf(endpointId: string) {
  return (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)).orderBy(webhookDeliveries.seq);
}

const book = (key: string, start: string, end: string) => call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: 'external', start, end } });

describe('outbox and signature', () => {
  it('a booking writes booking.created with it (a refused one writes nothing); the delivery verifies with the documented snippet', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created', 'booking.confirmed']);
    expect(ep.secret).toMatch(/^whsec_/);
    const booked = await book(admin.key, day.at('10:00'), day.at('10:30'));
    expect(booked.status, booked.text).toBe(201);
    expect((await book(admin.key, day.at('10:00'), day.at('10:30'))).status).toBe(409);
    expect(await rowsOf(ep.id)).toHaveLength(1);

    expect(await pass()).toBe(1);
    expect(r.received).toHaveLength(1);
    const { headers, body } = r.received[0];
    const verify = documentedVerifier();
    expect(verify(ep.secret, headers, body)).toBe(true);
    const event = JSON.parse(body);
    expect(event).toMatchObject({ type: 'booking.created', data: { booking_id: booked.body.booking_id, owner_email: owner, meeting_class: 'external' } });
    expect(headers['webhook-id']).toBe((await rowsOf(ep.id))[0].id);
    // Tampered body, other secret, late replay: refused.
    expect(() => verify(ep.secret, headers, body.replace('external', 'internal'))).toThrow('bad signature');
    expect(() => verify('whsec_other', headers, body)).toThrow('bad signature');
    expect(() => verify(ep.secret, headers, body, 300, Number(headers['webhook-timestamp']) + 301)).toThrow('timestamp outside tolerance');
    expect((await rowsOf(ep.id))[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 });
    // The secret is never shown again.
    const got = await call('GET', `/v1/webhooks/${ep.id}`, { key: admin.key });
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(ep.secret);
  });

  it('a group booking writes one booking.created per member, each naming the group (docs/groups.md)', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created']);
    const second = await setupOwner(admin);
    const booked = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_emails: [owner, second], meeting_class: 'external', start: day.at('15:00'), end: day.at('15:30') } });
    expect(booked.status, booked.text).toBe(201);
    expect(await rowsOf(ep.id)).toHaveLength(2);
    // One delivery per endpoint and pass (per-endpoint order).
    for (let i = 0; i < 4 && r.received.length < 2; i++) await pass();
    expect(r.received).toHaveLength(2);
    const events = r.received.map((x) => JSON.parse(x.body));
    expect(events.map((e) => e.data.owner_email).sort()).toEqual([owner, second].sort());
    for (const e of events) expect(e).toMatchObject({ type: 'booking.created', data: { group_id: booked.body.group_id } });
  });

  it('confirming a hold sends booking.confirmed naming the hold', async () => {
    const r = await receiver();
    await register(admin.key, r.url, ['booking.confirmed']);
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'candidate', candidate: { start: day.at('13:00'), end: day.at('13:30') } } });
    expect(hold.status, hold.text).toBe(200);
    const confirmed = await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('13:00'), end: day.at('13:30') } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(await pass()).toBe(1);
    expect(JSON.parse(r.received[0].body)).toMatchObject({ type: 'booking.confirmed', data: { booking_id: confirmed.body.booking_id, hold_id: hold.body.hold_id } });
  });
});

describe('INSERT_WEBHOOK_EVENT (db/hot/webhooks.ts)', () => {
  it("writes one row per active endpoint of the agent subscribed to the kind, once per event", async () => {
    const agent = await newAgent(admin, []);
    const r = await receiver();
    const a = await register(agent.key, r.url, ['booking.cancelled', 'hold.expired']);
    const b = await register(agent.key, r.url, ['hold.expired']);
    const off = await register(agent.key, r.url, ['booking.cancelled']);
    await call('PATCH', `/v1/webhooks/${off.id}`, { key: agent.key, body: { enabled: false } });
    await register(admin.key, r.url, ['booking.cancelled']); // another agent's endpoint
    const db = await getDb();
    const at = new Date();
    const eventId = newId();
    const ev = { eventId, agentId: agent.agentId, kind: 'booking.cancelled' as const, data: { booking_id: 'x' }, now: at };
    await db.transaction((tx) => recordWebhookEvent(tx, ev));
    await db.transaction((tx) => recordWebhookEvent(tx, ev)); // the same event again: no second row
    const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
    expect(rows.map((x) => x.endpointId)).toEqual([a.id]);
    expect(rows[0]).toMatchObject({ kind: 'booking.cancelled', status: 'pending', attempts: 0, customerId: admin.customerId, nextAttemptAt: at, createdAt: at });
    expect(JSON.parse(rows[0].body)).toEqual({ id: eventId, type: 'booking.cancelled', created_at: at.toISOString(), data: { booking_id: 'x', actor: { kind: 'system' } } });
    // Rolled back with its transaction.
    const lost = newId();
    await expect(
      db.transaction(async (tx) => {
        await recordWebhookEvent(tx, { ...ev, eventId: lost });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, lost))).toEqual([]);
    expect(await rowsOf(b.id)).toEqual([]);
  });
});

describe('proposal.created', () => {
  it('an agent proposal writes proposal.created with it', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['proposal.created']);
    const created = await call('POST', '/v1/booking-proposals', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'external', duration_minutes: 30, window: { start: day.at('15:00'), end: day.at('16:00') }, attendees: [{ email: 'guest@example.com' }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(await pass()).toBe(1);
    expect(JSON.parse(r.received[0].body)).toMatchObject({ type: 'proposal.created', data: { proposal_id: created.body.proposal_id, status: 'pending_review', owner_email: owner } });
    expect(await rowsOf(ep.id)).toHaveLength(1);
  });
});

describe('retries, order, disable', () => {
  it('a receiver failing twice gets the delivery on the third try, not before its backoff', async () => {
    const r = await receiver((n) => (n < 2 ? 500 : 204));
    const ep = await register(admin.key, r.url, ['booking.created']);
    const sent = await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key });
    expect(sent.status, sent.text).toBe(202);

    expect(await pass(0)).toBe(1);
    expect(await pass(0)).toBe(0); // backing off
    const log = await call('GET', `/v1/webhooks/${ep.id}/deliveries`, { key: admin.key });
    expect(log.body.deliveries[0]).toMatchObject({ id: sent.body.delivery_id, status: 'pending', attempts: 1, last_status: 500 });
    expect(await pass(HOUR)).toBe(1);
    expect(await pass(2 * HOUR)).toBe(1);
    expect(await pass(3 * HOUR)).toBe(0);

    expect(r.received.map((x) => x.headers['webhook-id'])).toEqual([sent.body.delivery_id, sent.body.delivery_id, sent.body.delivery_id]);
    const verify = documentedVerifier();
    for (const x of r.received) expect(verify(ep.secret, x.headers, x.body, 300, Number(x.headers['webhook-timestamp']))).toBe(true);
    const after = await call('GET', `/v1/webhooks/${ep.id}/deliveries`, { key: admin.key });
    expect(after.body.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 3, last_status: 204, next_attempt_at: null });
  });

  it('per-endpoint order: a row waits while an older one of its endpoint is pending', async () => {
    const r = await receiver((n) => (n === 0 ? 503 : 200));
    const ep = await register(admin.key, r.url, ['booking.created']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key })).body.event_id);
    expect(await pass(0)).toBe(1);
    expect(await pass(0)).toBe(0); // the second and third wait behind the first
    for (let i = 1; i <= 4; i++) await pass(i * HOUR);
    expect(r.received.map((x) => JSON.parse(x.body).id)).toEqual([ids[0], ids[0], ids[1], ids[2]]);
  });

  it('the sweeper drops delivered rows after the retention, never pending ones', async () => {
    const r = await receiver((n) => (n === 0 ? 200 : 500));
    const ep = await register(admin.key, r.url, ['booking.created']);
    await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key });
    await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key });
    expect(await pass(0)).toBe(1);
    expect(await pass(HOUR)).toBe(1); // the second fails: pending
    const db = await getDb();
    await sweepDeliveredWebhooks(db, new Date(Date.now() + DELIVERED_RETENTION_MS - HOUR));
    expect(await rowsOf(ep.id)).toHaveLength(2);
    await sweepDeliveredWebhooks(db, new Date(Date.now() + DELIVERED_RETENTION_MS + HOUR));
    expect((await rowsOf(ep.id)).map((x) => x.status)).toEqual(['pending']);
  });

  it('two passes at once never send one row twice (lease)', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created']);
    await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key });
    const counts = await Promise.all([pass(0), pass(0), pass(0)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(r.received).toHaveLength(1);
  });

  it("the worker's one-endpoint statements: the head leased once, in order, only while active; a delivered row's record leases the next", async () => {
    const ep = await register(admin.key, 'http://127.0.0.1:9/hook', ['booking.created']);
    const other = await register(admin.key, 'http://127.0.0.1:9/hook', ['booking.created']);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key })).body.delivery_id);
    await call('POST', `/v1/webhooks/${other.id}/test`, { key: admin.key });
    const db = await getDb();
    const now = new Date();
    const until = new Date(now.getTime() + HOUR);
    const lease = () => leaseEndpointHead(db, ep.id, now, until, admin.customerId);

    expect(await leaseEndpointHead(db, ep.id, now, until, newId())).toBeNull(); // another customer's worker
    expect(await lease()).toMatchObject({ id: ids[0], attempts: 1, url: 'http://127.0.0.1:9/hook' });
    expect(await lease()).toBeNull(); // leased: never twice, and nothing behind it goes first
    // Recorded with the next row leased in the same statement, then recorded alone.
    expect(await recordDelivered(db, { id: ids[0], status: 204, at: now }, { now, leaseUntil: until })).toMatchObject({ id: ids[1], attempts: 1 });
    expect(await recordDelivered(db, { id: ids[1], status: 204, at: now })).toBeNull();
    expect(await lease()).toMatchObject({ id: ids[2] });
    // Paused while ids[2] is in flight: its record leases nothing, and neither does a lease of the endpoint.
    expect((await call('PATCH', `/v1/webhooks/${ep.id}`, { key: admin.key, body: { enabled: false } })).status).toBe(200);
    expect(await recordDelivered(db, { id: ids[2], status: 200, at: now }, { now, leaseUntil: until })).toBeNull();
    expect(await lease()).toBeNull();
    expect((await call('PATCH', `/v1/webhooks/${ep.id}`, { key: admin.key, body: { enabled: true } })).status).toBe(200);
    expect(await lease()).toMatchObject({ id: ids[3] });

    expect((await rowsOf(ep.id)).map((x) => [x.status, x.lastStatus, x.leaseUntil === null])).toEqual([
      ['delivered', 204, true],
      ['delivered', 204, true],
      ['delivered', 200, true],
      ['pending', null, false],
    ]);
    expect(await rowsOf(other.id)).toMatchObject([{ status: 'pending', attempts: 0, leaseUntil: null }]);
  });

  it('after consecutive failures the endpoint is disabled, stops receiving, and the agent is told; re-enabling resumes', async () => {
    const agent = await newAgent(admin, ['create_bookings']);
    const r = await receiver(() => 500);
    const ep = await register(agent.key, r.url, ['booking.created']);
    expect((await book(agent.key, day.at('11:00'), day.at('11:30'))).status).toBe(201);
    for (let i = 0; i < 3; i++) expect(await pass(i * HOUR, { disableAfter: 3 })).toBe(1);

    const got = await call('GET', `/v1/webhooks/${ep.id}`, { key: agent.key });
    expect(got.body).toMatchObject({ status: 'disabled', consecutive_failures: 3 });
    expect(got.body.disabled_reason).toContain('3 consecutive failed deliveries');
    const notes = await call('GET', '/v1/notifications', { key: agent.key });
    expect(notes.body.notifications).toEqual([expect.objectContaining({ kind: 'webhook.disabled', data: expect.objectContaining({ webhook_id: ep.id, url: r.url, consecutive_failures: 3 }) })]);

    expect((await book(agent.key, day.at('12:00'), day.at('12:30'))).status).toBe(201);
    expect(await rowsOf(ep.id)).toHaveLength(1); // no new row for a disabled endpoint
    expect(await pass(10 * HOUR)).toBe(0);
    expect(r.received).toHaveLength(3);

    const enabled = await call('PATCH', `/v1/webhooks/${ep.id}`, { key: agent.key, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_reason: null });
    expect(await pass(11 * HOUR)).toBe(1);
    expect(r.received).toHaveLength(4);
  });
});

describe('endpoints', () => {
  it("an agent sees only its own endpoints; a subscription covers only its kinds", async () => {
    const other = await newAgent(admin, ['create_bookings']);
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.cancelled']);
    expectEnvelope(await call('GET', `/v1/webhooks/${ep.id}`, { key: other.key }), 404, 'WEBHOOK_NOT_FOUND');
    expectEnvelope(await call('DELETE', `/v1/webhooks/${ep.id}`, { key: other.key }), 404, 'WEBHOOK_NOT_FOUND');
    expect((await call('GET', '/v1/webhooks', { key: other.key })).body.webhooks).toEqual([]);
    expect((await book(admin.key, day.at('14:00'), day.at('14:30'))).status).toBe(201);
    expect(await rowsOf(ep.id)).toHaveLength(0);
    expectEnvelope(await call('POST', '/v1/webhooks', { key: admin.key, body: { url: r.url, events: ['webhook.test'] } }), 400, 'invalid_request');
    const del = await call('DELETE', `/v1/webhooks/${ep.id}`, { key: admin.key });
    expect(del.body).toEqual({ id: ep.id, deleted: true });
  });
});

describe('SSRF', () => {
  afterEach(() => {
    process.env.OUTBOUND_ALLOW_PRIVATE = '1';
  });

  it.each([
    ['ftp://example.com/hook', 'SCHEME_NOT_ALLOWED'],
    ['http://user:pw@example.com/hook', 'CREDENTIALS_IN_URL'],
    ['http://127.0.0.1:3745/hook', 'PRIVATE_ADDRESS'],
    ['http://localhost:3745/hook', 'PRIVATE_ADDRESS'],
    ['http://169.254.169.254/latest/meta-data', 'PRIVATE_ADDRESS'],
    ['http://10.1.2.3/hook', 'PRIVATE_ADDRESS'],
    ['http://[::1]/hook', 'PRIVATE_ADDRESS'],
    ['http://[fe80::1]/hook', 'PRIVATE_ADDRESS'],
    ['http://[::ffff:192.168.0.1]/hook', 'PRIVATE_ADDRESS'],
    // The IPv6 spellings of loopback the old guard let through (issue: webhook guard), and the odd IPv4 ones.
    ['http://[::127.0.0.1]/h', 'PRIVATE_ADDRESS'],
    ['http://[::ffff:0:127.0.0.1]/h', 'PRIVATE_ADDRESS'],
    ['http://[2002:7f00:1::1]/h', 'PRIVATE_ADDRESS'],
    ['http://[64:ff9b::127.0.0.1]/h', 'PRIVATE_ADDRESS'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h', 'PRIVATE_ADDRESS'],
    ['http://2130706433/h', 'PRIVATE_ADDRESS'],
    ['http://0177.0.0.1/h', 'PRIVATE_ADDRESS'],
    ['http://0x7f000001/h', 'PRIVATE_ADDRESS'],
    ['http://127.1/h', 'PRIVATE_ADDRESS'],
    ['http://0.0.0.0/h', 'PRIVATE_ADDRESS'],
  ])('refuses %s (%s) when private targets are not allowed, naming the setting', async (url, reason) => {
    process.env.OUTBOUND_ALLOW_PRIVATE = '0';
    const err = expectEnvelope(await call('POST', '/v1/webhooks', { key: admin.key, body: { url, events: ['booking.created'] } }), 400, 'WEBHOOK_URL_REFUSED');
    expect(err.reason).toBe(reason);
    if (reason === 'PRIVATE_ADDRESS') expect(err.message).toContain('OUTBOUND_ALLOW_PRIVATE=1');
  });

  it('WEBHOOKS_ALLOW_PRIVATE is the older name of the same setting', async () => {
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    await withOutboundSetting('1', async () => {
      const ep = await register(admin.key, 'http://127.0.0.1:3745/hook', ['booking.created']);
      expect(ep.id).toBeTruthy();
    }, 'WEBHOOKS_ALLOW_PRIVATE');
    await withOutboundSetting('0', async () => {
      expectEnvelope(await call('POST', '/v1/webhooks', { key: admin.key, body: { url: 'http://127.0.0.1:3745/hook', events: ['booking.created'] } }), 400, 'WEBHOOK_URL_REFUSED');
    }, 'WEBHOOKS_ALLOW_PRIVATE');
  });

  it('a delivery to a loopback target registered while allowed opens no connection once the guard is on', async () => {
    const listener = await connectionCounter();
    closers.push(listener.close);
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.1']) {
      const ep = await register(admin.key, `http://${host}:${listener.port}/h`, ['booking.created']);
      expect((await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key })).status).toBe(202);
    }
    process.env.OUTBOUND_ALLOW_PRIVATE = '0';
    expect(await pass(0, { allowPrivate: false })).toBe(4);
    expect(listener.connections()).toBe(0);
    const rows = await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.customerId, admin.customerId));
    for (const row of rows.filter((r) => r.kind === 'webhook.test')) expect(row.lastError).toMatch(/^refused: .*OUTBOUND_ALLOW_PRIVATE=1/);
    // The control: allowed, the same rows reach the listener (so the count above could have moved).
    expect(await pass(HOUR, { allowPrivate: true })).toBe(4);
    expect(listener.connections()).toBeGreaterThanOrEqual(4);
  });

  it('accepts a public address; refuses a private one on PATCH; delivery re-checks the target', async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = '0';
    const pub = await register(admin.key, 'https://93.184.215.14/hook', ['booking.created']);
    expectEnvelope(await call('PATCH', `/v1/webhooks/${pub.id}`, { key: admin.key, body: { url: 'http://192.168.1.1/' } }), 400, 'WEBHOOK_URL_REFUSED');

    process.env.OUTBOUND_ALLOW_PRIVATE = '1';
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created']);
    await call('POST', `/v1/webhooks/${ep.id}/test`, { key: admin.key });
    expect(await pass(0, { allowPrivate: false })).toBe(1);
    expect(r.received).toHaveLength(0);
    expect((await rowsOf(ep.id))[0]).toMatchObject({ status: 'pending', lastError: expect.stringContaining('refused') });
  });
});

describe('isolation between endpoints (the server worker)', () => {
  /** A receiver that holds every request open until `release()`; `open()` says whether one is still unanswered. */
  async function hangingReceiver() {
    const held: http.ServerResponse[] = [];
    let arrived = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived++;
        held.push(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const release = () => held.splice(0).forEach((res) => res.writeHead(200).end());
    closers.push(async () => {
      release();
      await new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); });
    });
    return { url: `http://127.0.0.1:${port}/hook`, arrived: () => arrived, open: () => held.some((res) => !res.writableEnded && !res.destroyed), release };
  }

  async function until(what: string, cond: () => boolean, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it("a hanging receiver does not delay another endpoint's delivery; with one place in flight it does", async () => {
    const hang = await hangingReceiver();
    const healthy = await receiver();
    const slow = await register(admin.key, hang.url, ['booking.created']);
    const fast = await register(admin.key, healthy.url, ['booking.created']);
    const base = { allowPrivate: true, retryBaseMs: 60_000, pollMs: 20, timeoutMs: 60_000, notifyDisabled: enqueueNotification, customerId: admin.customerId };

    let stop = startWebhookWorker(getDb, base);
    try {
      await call('POST', `/v1/webhooks/${slow.id}/test`, { key: admin.key });
      await until('the hanging receiver to get its request', () => hang.arrived() === 1);
      await call('POST', `/v1/webhooks/${fast.id}/test`, { key: admin.key });
      await until('the healthy delivery', () => healthy.received.length === 1);
      // Causality, not a time threshold: the healthy delivery arrived while the other was still unanswered.
      expect(hang.open()).toBe(true);
    } finally {
      stop();
    }
    hang.release();

    // The bound: with one place per process, the second endpoint waits for the hanging one.
    for (let i = 0; (await rowsOf(slow.id))[0]?.status !== 'delivered'; i++) {
      if (i > 1000) throw new Error('the released delivery was not recorded');
      await new Promise((r) => setTimeout(r, 10));
    }
    stop = startWebhookWorker(getDb, { ...base, maxInFlight: 1 });
    try {
      await call('POST', `/v1/webhooks/${slow.id}/test`, { key: admin.key });
      await until('the hanging receiver to get its second request', () => hang.arrived() === 2);
      await call('POST', `/v1/webhooks/${fast.id}/test`, { key: admin.key });
      await new Promise((r) => setTimeout(r, 300)); // many poll periods
      expect(healthy.received).toHaveLength(1);
      hang.release();
      await until('the healthy delivery after the release', () => healthy.received.length === 2);
    } finally {
      stop();
    }
  });
});

/**
 * The worker is woken on commit (docs/webhooks.md "Delivery"): NOTIFY from the outbox's trigger
 * (migration 0028), and its own timer for the retries it scheduled. Every worker here polls once
 * an hour, so a delivery that arrives within the test was woken, not polled. The waits are bounded
 * by a deadline, never by a latency threshold. (In this file: on PostgreSQL a worker leases every
 * customer's rows, and the tests above drive passes by hand.)
 */
describe('the worker is woken on commit, not by its poll', () => {
  async function until(what: string, cond: () => boolean, ms = 20_000) {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** A worker as server/startup.ts runs it, polling once an hour; resolves once it listens and its first pass is over. */
  async function worker(opts: Partial<WorkerOptions> = {}) {
    let live = false;
    const stop = startWebhookWorker(getDb, {
      allowPrivate: true,
      retryBaseMs: HOUR,
      pollMs: HOUR,
      notifyDisabled: enqueueNotification,
      customerId: admin.customerId,
      listen: (onNotify, onState) =>
        getDbHandle().then((h) =>
          h.listen(WEBHOOK_OUTBOX_CHANNEL, onNotify, (v) => {
            live = v;
            onState(v);
          }),
        ),
      ...opts,
    });
    closers.push(async () => stop());
    await until('the worker to listen', () => live);
    // Its first pass (at start) is long over by then.
    await new Promise((r) => setTimeout(r, 200));
  }

  const testSend = async (id: string) => expect((await call('POST', `/v1/webhooks/${id}/test`, { key: admin.key })).status).toBe(202);

  it('each committed event is delivered, the fallback poll an hour away', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created']);
    await worker();
    for (let i = 1; i <= 3; i++) {
      await testSend(ep.id);
      await until(`delivery ${i}`, () => r.received.length === i);
    }
    // Three rows queued in a burst for one endpoint: each next one goes when the previous is delivered.
    for (let i = 0; i < 3; i++) await testSend(ep.id);
    await until('the burst', () => r.received.length === 6);
  });

  it('failed attempts are retried when their backoff ends (the worker sets its own timer, one per retry)', async () => {
    const r1 = await receiver((n) => (n === 0 ? 500 : 204));
    const r2 = await receiver((n) => (n === 0 ? 500 : 204));
    const ep1 = await register(admin.key, r1.url, ['booking.created']);
    const ep2 = await register(admin.key, r2.url, ['booking.created']);
    // Backoff 200 ms x 0.5: well inside the test, an hour before the poll. The second endpoint's
    // retry falls due after the first's: it must not be forgotten when the first one's timer fires.
    await worker({ retryBaseMs: 200, random: () => 0 });
    await testSend(ep1.id);
    await until('the first attempt at the first endpoint', () => r1.received.length === 1);
    await testSend(ep2.id);
    await until('both retries', () => r1.received.length === 2 && r2.received.length === 2);
    expect(r1.received[1].headers['webhook-id']).toBe(r1.received[0].headers['webhook-id']);
    expect(r2.received[1].headers['webhook-id']).toBe(r2.received[0].headers['webhook-id']);
  });

  it('re-enabling a paused endpoint sends its waiting row at once', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created']);
    await testSend(ep.id); // queued before the worker runs
    expect((await call('PATCH', `/v1/webhooks/${ep.id}`, { key: admin.key, body: { enabled: false } })).status).toBe(200);
    await worker();
    expect(r.received).toHaveLength(0); // paused: its row waits
    expect((await call('PATCH', `/v1/webhooks/${ep.id}`, { key: admin.key, body: { enabled: true } })).status).toBe(200);
    await until('the resumed delivery', () => r.received.length === 1);
  });

  it('rows committed before the worker starts go out at its start', async () => {
    const r = await receiver();
    const ep = await register(admin.key, r.url, ['booking.created']);
    await testSend(ep.id);
    await worker();
    await until('the delivery at start', () => r.received.length === 1);
  });
});
