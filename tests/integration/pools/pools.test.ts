import { beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { owners, poolAssignments } from '@/db/schema';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * Pools (docs/groups.md, "Pools") through the real route handlers: administration, search
 * with `pool` (the members' union with candidates), holds and bookings that pick a member by
 * the assignment rule (load / weight, then least recently booked, then owner id), the
 * answer's and the audit row's assignment, scope, and the assignments report.
 */
let admin: TestCustomer;
let a: string;
let b: string;
let c: string;
const TZ = 'UTC';

beforeAll(async () => {
  admin = await newCustomer();
  a = await setupOwner(admin, { timeZone: TZ });
  b = await setupOwner(admin, { timeZone: TZ });
  c = await setupOwner(admin, { timeZone: 'America/New_York', workingHours: null });
});

const createPool = (name: string, members: { owner_email: string; weight: number }[], key = admin.key) => call('POST', '/v1/pools', { key, body: { name, members } });
const book = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/bookings', { key, body: { meeting_class: 'internal', ...body } });

describe('pool administration', () => {
  it('creates, reads, lists, renames, re-weights and deletes a pool, with audit rows', async () => {
    const created = await createPool('sales', [
      { owner_email: a, weight: 1 },
      { owner_email: b, weight: 3 },
    ]);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'sales', members: expect.arrayContaining([{ owner_email: a, weight: 1 }, { owner_email: b, weight: 3 }]) });
    const id = created.body.pool_id;
    expectEnvelope(await createPool('sales', [{ owner_email: a, weight: 1 }]), 409, 'POOL_ALREADY_EXISTS');
    expectEnvelope(await createPool('ghosts', [{ owner_email: 'nobody@example.com', weight: 1 }]), 404, 'OWNER_NOT_FOUND');
    expectEnvelope(await createPool('heavy', [{ owner_email: a, weight: 101 }]), 400, 'invalid_request');
    expectEnvelope(await createPool('twice', [{ owner_email: a, weight: 1 }, { owner_email: a.toUpperCase(), weight: 2 }]), 400, 'invalid_request');

    expect((await call('GET', `/v1/pools/${id}`, { key: admin.key })).body.pool_id).toBe(id);
    expect((await call('GET', '/v1/pools', { key: admin.key })).body.pools.map((p: { name: string }) => p.name)).toContain('sales');
    const patched = await call('PATCH', `/v1/pools/${id}`, { key: admin.key, body: { name: 'sales-emea', members: [{ owner_email: a, weight: 2 }, { owner_email: c, weight: 5 }] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.name).toBe('sales-emea');
    expect(patched.body.members).toEqual(expect.arrayContaining([{ owner_email: a, weight: 2 }, { owner_email: c, weight: 5 }]));
    expect(patched.body.members).toHaveLength(2);

    const deleted = await call('DELETE', `/v1/pools/${id}`, { key: admin.key });
    expect(deleted.status).toBe(200);
    expectEnvelope(await call('GET', `/v1/pools/${id}`, { key: admin.key }), 404, 'POOL_NOT_FOUND');
    expectEnvelope(await call('GET', '/v1/pools/not-a-uuid', { key: admin.key }), 404, 'POOL_NOT_FOUND');

    const log = await call('GET', '/v1/audit-log?limit=50', { key: admin.key });
    const actions = log.body.entries.filter((e: { details: { pool_id?: string } | null }) => e.details?.pool_id === id).map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['pool.create', 'pool.update', 'pool.delete']));
  });

  it('needs manage_customer to change pools; read_availability may read them; a user-scoped agent only sees pools it covers', async () => {
    const pool = await createPool('scoped', [{ owner_email: a, weight: 1 }, { owner_email: b, weight: 1 }]);
    const own = await createPool('just-a', [{ owner_email: a, weight: 1 }]);
    const reader = await newAgent(admin, ['read_availability', 'create_bookings', 'create_holds']);
    expectEnvelope(await createPool('nope', [{ owner_email: a, weight: 1 }], reader.key), 403, 'permission_denied:manage_customer');
    expect((await call('GET', `/v1/pools/${pool.body.pool_id}`, { key: reader.key })).status).toBe(200);

    const justA = await newAgent(admin, ['read_availability', 'create_bookings'], `user:${a}`);
    const listed = await call('GET', '/v1/pools', { key: justA.key });
    expect(listed.body.pools.map((p: { name: string }) => p.name)).toEqual(['just-a']);
    expectEnvelope(await call('GET', `/v1/pools/${pool.body.pool_id}`, { key: justA.key }), 403, 'owner_scope_denied');
    const day = nextWeekday('tue', TZ, 3);
    expectEnvelope(await book({ pool: 'scoped', start: day.at('10:00'), end: day.at('10:30') }, justA.key), 403, 'owner_scope_denied');
    const mine = await book({ pool: own.body.pool_id, start: day.at('10:00'), end: day.at('10:30') }, justA.key);
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body).toMatchObject({ owner_email: a, assignment: { reason: 'only_candidate', weight: 1 } });
  });
});

describe('scheduling through a pool', () => {
  let poolId: string;
  beforeAll(async () => {
    const p = await createPool('demo', [
      { owner_email: a, weight: 1 },
      { owner_email: b, weight: 1 },
      { owner_email: c, weight: 2 },
    ]);
    poolId = p.body.pool_id;
  });

  it('searches the union of the members, each slot with its candidates and their local times', async () => {
    const day = nextWeekday('wed', TZ, 2);
    // a is busy 09:00-10:00; c (no working hours) is free around the clock.
    expect((await book({ owner_email: a, start: day.at('09:00'), end: day.at('10:00') })).status).toBe(201);
    const res = await call('POST', '/v1/availability/search', {
      key: admin.key,
      body: { pool: 'demo', meeting_class: 'internal', duration_minutes: 30, window: { start: day.at('08:00'), end: day.at('10:00') } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.pool_id).toBe(poolId);
    const at = (hhmm: string) => res.body.slots.find((s: { start: string }) => s.start === day.at(hhmm));
    expect(at('08:00').candidates).toEqual([c]); // before a's and b's working hours
    expect(new Set(at('09:00').candidates)).toEqual(new Set([b, c]));
    expect(at('09:00').local[c].start_local).toMatch(/T0[45]:00:00/); // New York
    // owners: the members that had slots (a is busy all window).
    expect(new Set(res.body.owners.map((o: { owner_email: string }) => o.owner_email))).toEqual(new Set([b, c]));
    expectEnvelope(
      await call('POST', '/v1/availability/search', { key: admin.key, body: { pool: 'demo', owner_email: a, meeting_class: 'internal', duration_minutes: 30, window: { start: day.at('08:00'), end: day.at('10:00') } } }),
      400,
      'invalid_request',
    );
    expectEnvelope(await call('POST', '/v1/availability/search', { key: admin.key, body: { pool: 'no-such-pool', meeting_class: 'internal', duration_minutes: 30, window: { start: day.at('08:00'), end: day.at('10:00') } } }), 404, 'POOL_NOT_FOUND');
  });

  it('picks by load / weight, then least recently booked, then owner id; answer and audit row say who and why', async () => {
    const ids = new Map((await (await getDb()).select({ id: owners.id, email: owners.email }).from(owners).where(inArray(owners.email, [a, b, c]))).map((o) => [o.email, o.id]));
    const weight: Record<string, number> = { [a]: 1, [b]: 1, [c]: 2 };
    const load: Record<string, number> = { [a]: 0, [b]: 0, [c]: 0 };
    const last: Record<string, number> = { [a]: -1, [b]: -1, [c]: -1 };
    // The rule, independently: what the pool must pick next.
    const expected = () =>
      [a, b, c].sort((x, y) => load[x] * weight[y] - load[y] * weight[x] || last[x] - last[y] || (ids.get(x)! < ids.get(y)! ? -1 : 1))[0];
    const reasons = new Set<string>();
    const day = nextWeekday('thu', TZ, 4);
    for (let i = 0; i < 8; i++) {
      const start = day.at(`${String(9 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`);
      const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
      const want = expected();
      const res = await book({ pool: 'demo', start, end, title: `pool ${i}` });
      expect(res.status, res.text).toBe(201);
      expect(res.body.owner_email, `booking ${i}`).toBe(want);
      expect(res.body.assignment).toMatchObject({ pool_id: poolId, load_minutes: load[want], weight: weight[want] });
      reasons.add(res.body.assignment.reason);
      load[want] += 30;
      last[want] = i;
    }
    expect(reasons).toEqual(new Set(['owner_order', 'lowest_weighted_load', 'least_recently_booked']));

    const log = await call('GET', '/v1/audit-log?action=booking.create&limit=20', { key: admin.key });
    const entry = log.body.entries.find((e: { details: { pool?: unknown } | null }) => e.details?.pool);
    expect(entry.details.pool).toMatchObject({ pool_id: poolId, name: 'demo', assignment: { reason: expect.any(String) } });
    expect(entry.details.pool.candidates[0]).toBe(entry.owner_email);
    const rows = await (await getDb()).select().from(poolAssignments).where(inArray(poolAssignments.poolId, [poolId]));
    expect(rows.length).toBeGreaterThanOrEqual(8);
  });

  it('skips a member whose arbiter refuses the slot, and honours a named member', async () => {
    const day = nextWeekday('fri', TZ, 5);
    const slot = { start: day.at('11:00'), end: day.at('11:30') };
    // Everyone but b busy at the slot: b is the only candidate.
    for (const o of [a, c]) expect((await book({ owner_email: o, ...slot })).status).toBe(201);
    const res = await book({ pool: 'demo', ...slot });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ owner_email: b, assignment: { reason: 'only_candidate' } });
    // Nobody free: the refusal of the first member by the rule, 409 with alternatives.
    expectEnvelope(await book({ pool: 'demo', ...slot }), 409, 'ARBITRATION_REJECTED');

    const other = { start: day.at('13:00'), end: day.at('13:30') };
    const stranger = expectEnvelope(await book({ pool: 'demo', owner_email: 'stranger@example.com', ...other }), 400, 'invalid_request');
    expect(stranger.details.fields[0].path).toBe('body.owner_email');
    const named = await book({ pool: 'demo', owner_email: a, ...other });
    expect(named.status, named.text).toBe(201);
    expect(named.body).toMatchObject({ owner_email: a, assignment: { reason: 'requested' } });
    // A named member that is not free is refused, not replaced.
    expectEnvelope(await book({ pool: 'demo', owner_email: a, ...other }), 409, 'ARBITRATION_REJECTED');
  });

  it('holds through a pool; the confirmed booking counts in the assignments report', async () => {
    const p = await createPool('report', [
      { owner_email: a, weight: 1 },
      { owner_email: b, weight: 3 },
    ]);
    const day = nextWeekday('mon', TZ, 6);
    const slot = { start: day.at('14:00'), end: day.at('15:00') };
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { pool: 'report', meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
    expect(hold.status, hold.text).toBe(200);
    expect(hold.body.assignment).toMatchObject({ pool_id: p.body.pool_id, load_minutes: 0 });
    const chosen = hold.body.owner_email;
    const confirmed = await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: slot });
    expect(confirmed.status, confirmed.text).toBe(200);
    const window = await call('POST', '/v1/holds', {
      key: admin.key,
      body: { pool: p.body.pool_id, meeting_class: 'internal', hold_scope: 'window', window: { start: day.at('09:00'), end: day.at('12:00') }, duration_minutes: 30 },
    });
    expect(window.status, window.text).toBe(200);
    expect(window.body.owner_email).not.toBe(chosen); // the other member now has the lower load

    const report = await call('GET', `/v1/pools/${p.body.pool_id}/assignments`, { key: admin.key });
    expect(report.status, report.text).toBe(200);
    const byEmail = Object.fromEntries(report.body.members.map((m: { owner_email: string }) => [m.owner_email, m]));
    expect(byEmail[chosen]).toMatchObject({ booked_minutes: 60, share: 1 });
    expect(byEmail[a].target_share).toBe(0.25);
    expect(byEmail[b].target_share).toBe(0.75);
    expectEnvelope(await call('GET', `/v1/pools/${p.body.pool_id}/assignments?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`, { key: admin.key }), 400, 'invalid_request');
  });

  it('concurrent bookings of one slot through a pool each land on a different member; the rest are refused', async () => {
    const day = nextWeekday('tue', TZ, 7);
    const slot = { start: day.at('15:00'), end: day.at('15:30') };
    const results = await Promise.all(Array.from({ length: 5 }, () => book({ pool: 'demo', ...slot })));
    const won = results.filter((r) => r.status === 201);
    expect(won.map((r) => r.body.owner_email).sort()).toEqual([a, b, c].sort());
    for (const r of results.filter((x) => x.status !== 201)) expectEnvelope(r, 409, 'ARBITRATION_REJECTED');
  });
});

describe('the dashboard procedures (admin.pools)', () => {
  const callerAs = async (role: 'admin' | 'member') => {
    const db = await getDb();
    const [me] = await db.select({ id: owners.id }).from(owners).where(eq(owners.email, a));
    const req = new Request('http://scheduler.test/api/trpc');
    return createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: me.id, customerId: admin.customerId, email: a, role }, db, now: () => new Date() });
  };

  it('create, list with the last 30 days of assignments, update and delete; a member owner is refused; the audit names the owner', async () => {
    const caller = await callerAs('admin');
    const created = await caller.admin.pools.create({ name: 'from the dashboard', members: [{ owner_email: a, weight: 1 }, { owner_email: b, weight: 4 }] });
    const listed = (await caller.admin.pools.list()).pools.find((p) => p.pool_id === created.pool_id)!;
    expect(listed.assignments).toEqual(
      expect.arrayContaining([
        { owner_email: a, weight: 1, booked_minutes: 0, share: 0, target_share: 0.2 },
        { owner_email: b, weight: 4, booked_minutes: 0, share: 0, target_share: 0.8 },
      ]),
    );
    await expect(caller.admin.pools.create({ name: 'from the dashboard', members: [{ owner_email: a, weight: 1 }] })).rejects.toMatchObject({ cause: { code: 'POOL_ALREADY_EXISTS' } });
    const updated = await caller.admin.pools.update({ pool_id: created.pool_id, members: [{ owner_email: a, weight: 7 }] });
    expect(updated.members).toEqual([{ owner_email: a, weight: 7 }]);
    await caller.admin.pools.delete({ pool_id: created.pool_id });
    expect((await caller.admin.pools.list()).pools.some((p) => p.pool_id === created.pool_id)).toBe(false);
    await expect((await callerAs('member')).admin.pools.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const log = await call('GET', '/v1/audit-log?action=pool.update&limit=20', { key: admin.key });
    const entry = log.body.entries.find((e: { details: { pool_id?: string } }) => e.details.pool_id === created.pool_id);
    expect(entry).toMatchObject({ actor_kind: 'owner', actor_owner_email: a });
  });
});
