import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, setupOwner } from './fixtures';

/** Reading back (docs/api.md "Reading back"): GET /v1/bookings and GET /v1/holds. */
let admin: TestCustomer;
let ownerA: string;
let ownerB: string;
const book = (key: string, owner: string, start: string, end: string) =>
  call('POST', '/v1/bookings', { key, headers: { 'Idempotency-Key': crypto.randomUUID() }, body: { owner_email: owner, meeting_class: 'internal', start, end } });

beforeAll(async () => {
  admin = await newCustomer();
  ownerA = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('00:00', '24:00') });
  ownerB = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('00:00', '24:00') });
});

describe('GET /v1/bookings', () => {
  it('?agent=me returns exactly this agent\'s bookings, within its owner scope, paged by cursor', async () => {
    const scoped = await newAgent(admin, ['read_availability', 'create_bookings'], `user:${ownerA}`);
    const mine = [];
    for (const h of ['10', '11', '12']) {
      const r = await book(scoped.key, ownerA, `2027-02-01T${h}:00:00Z`, `2027-02-01T${h}:30:00Z`);
      expect(r.status, r.text).toBe(201);
      mine.push(r.body.booking_id);
    }
    expect((await book(admin.key, ownerA, '2027-02-01T13:00:00Z', '2027-02-01T13:30:00Z')).status).toBe(201); // another agent's
    expect((await book(admin.key, ownerB, '2027-02-01T10:00:00Z', '2027-02-01T10:30:00Z')).status).toBe(201); // another owner's

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `/v1/bookings?agent=me&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await call('GET', q, { key: scoped.key });
      expect(res.status, res.text).toBe(200);
      for (const b of res.body.bookings) {
        expect(b.owner_email).toBe(ownerA);
        expect(b.start_local).toMatch(/\+01:00$/);
      }
      seen.push(...res.body.bookings.map((b: { booking_id: string }) => b.booking_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(mine);

    // Without agent=me the scoped agent sees its owner's bookings only (4), never owner B's.
    const all = await call('GET', '/v1/bookings', { key: scoped.key });
    expect(all.body.bookings.map((b: { owner_email: string }) => b.owner_email)).toEqual([ownerA, ownerA, ownerA, ownerA]);
    expectEnvelope(await call('GET', `/v1/bookings?owner_email=${encodeURIComponent(ownerB)}`, { key: scoped.key }), 403, 'owner_scope_denied');

    // The admin (org:*) filtered by the scoped agent's id gets the same three; by owner B, its one.
    const byId = await call('GET', `/v1/bookings?agent=${scoped.agentId}`, { key: admin.key });
    expect(byId.body.bookings.map((b: { booking_id: string }) => b.booking_id)).toEqual(mine);
    const b = await call('GET', `/v1/bookings?owner_email=${encodeURIComponent(ownerB)}&from=2027-02-01T10:15:00%2B00:00&to=2027-02-02T00:00:00Z`, { key: admin.key });
    expect(b.body.bookings).toHaveLength(1);
  });

  it('needs read_availability or create_bookings', async () => {
    const none = await newAgent(admin, ['create_holds'], 'org:*');
    expectEnvelope(await call('GET', '/v1/bookings', { key: none.key }), 403, 'permission_denied:read_availability');
  });
});

describe('GET /v1/holds', () => {
  it('lists this agent\'s holds with status filter', async () => {
    const holder = await newAgent(admin, ['create_holds'], 'org:*');
    const made = await call('POST', '/v1/holds', {
      key: holder.key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      body: { owner_email: ownerB, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: '2027-02-03T10:00:00Z', end: '2027-02-03T11:00:00Z' } },
    });
    expect(made.status, made.text).toBe(200);
    const res = await call('GET', '/v1/holds?agent=me&status=active', { key: holder.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.holds.map((h: { hold_id: string }) => h.hold_id)).toEqual([made.body.hold_id]);
    const released = await call('GET', '/v1/holds?agent=me&status=released', { key: holder.key });
    expect(released.body.holds).toEqual([]);
  });
});

describe('who am I, who else, and what did they do', () => {
  it('GET /v1/agents/me names this agent, its scope, permissions, key prefix and budgets', async () => {
    const scoped = await newAgent(admin, ['read_availability'], `user:${ownerA}`);
    const me = await call('GET', '/v1/agents/me', { key: scoped.key });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ agent_id: scoped.agentId, owner_scope: `user:${ownerA}`, permissions: ['read_availability'] });
    expect(scoped.key.startsWith(me.body.key_prefix)).toBe(true);
    expect(me.body.rate_limits.holds).toEqual({ limit: 120, window_seconds: 60 });
  });

  it('GET /v1/agents needs manage_agents and lists every agent', async () => {
    const plain = await newAgent(admin, ['read_availability'], 'org:*');
    expectEnvelope(await call('GET', '/v1/agents', { key: plain.key }), 403, 'permission_denied:manage_agents');
    const all = await call('GET', '/v1/agents', { key: admin.key });
    expect(all.status, all.text).toBe(200);
    expect(all.body.agents.map((a: { agent_id: string }) => a.agent_id)).toContain(plain.agentId);
  });

  it('GET /v1/meeting-classes is readable with read_availability', async () => {
    const reader = await newAgent(admin, ['read_availability'], 'org:*');
    const res = await call('GET', '/v1/meeting-classes', { key: reader.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.meeting_classes.map((c: { name: string }) => c.name)).toContain('internal');
    const none = await newAgent(admin, ['create_holds'], 'org:*');
    expectEnvelope(await call('GET', '/v1/meeting-classes', { key: none.key }), 403, 'permission_denied:manage_customer');
  });

  it('the audit log filters by agent_id (me or an id)', async () => {
    const actor = await newAgent(admin, ['create_bookings', 'read_audit'], 'org:*');
    const made = await book(actor.key, ownerB, '2027-02-05T10:00:00Z', '2027-02-05T10:30:00Z');
    expect(made.status, made.text).toBe(201);
    const mine = await call('GET', '/v1/audit-log?agent_id=me', { key: actor.key });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.entries.length).toBeGreaterThan(0);
    for (const e of mine.body.entries) expect(e.agent_id).toBe(actor.agentId);
    const byId = await call('GET', `/v1/audit-log?agent_id=${actor.agentId}`, { key: admin.key });
    expect(byId.body.entries.map((e: { id: string }) => e.id)).toEqual(mine.body.entries.map((e: { id: string }) => e.id));
  });
});

describe('refusals of permission and scope are audited', () => {
  it('writes outcome denied with the code, readable by the owner side', async () => {
    const restricted = await newAgent(admin, ['read_availability'], `user:${ownerA}`);
    expectEnvelope(await call('GET', '/v1/agents', { key: restricted.key }), 403, 'permission_denied:manage_agents');
    expectEnvelope(await call('GET', `/v1/bookings?owner_email=${encodeURIComponent(ownerB)}`, { key: restricted.key }), 403, 'owner_scope_denied');
    const log = await call('GET', `/v1/audit-log?agent_id=${restricted.agentId}&outcome=denied`, { key: admin.key });
    expect(log.status, log.text).toBe(200);
    expect(log.body.entries.map((e: { reason: string; action: string; outcome: string }) => [e.action, e.outcome, e.reason])).toEqual([
      ['request.denied', 'denied', 'owner_scope_denied'],
      ['request.denied', 'denied', 'permission_denied:manage_agents'],
    ]);
    expect(log.body.entries[1].details).toMatchObject({ operation: 'listAgents', method: 'GET', path: '/v1/agents' });
  });
});
