import { beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '@/db/schema';
import { requiredPermissions } from '@/server/domain/access';
import { operations } from '@/server/http/operations';
import { api, newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { directAgents } from '../scheduling/fixtures';
import { OWNER_SCOPE_CASES, PERMISSION_FREE } from './cases';
import { ALL_PERMISSIONS, buildWorld, ipPool, type World } from './world';

/**
 * Authorization, driven by the operation declarations (server/http/operations),
 * so a new endpoint is checked the moment it is registered:
 *  - every API-key operation declares a `permission` or is on the commented
 *    allow-list (PERMISSION_FREE in cases.ts); otherwise this fails;
 *  - for each declared permission, an agent holding every OTHER permission
 *    gets 403 permission_denied:<perm>; an operation that accepts any of
 *    several permissions refuses an agent holding none of them with the first
 *    one named, and lets through an agent holding only one of them;
 *  - every API-key operation has an owner-scope case (or a stated exemption),
 *    and a `user:<other owner>` agent with every permission gets 403
 *    owner_scope_denied on each.
 */
const ip = ipPool(11);
const apiKeyOps = operations.filter((o) => o.auth === 'api_key');
const byId = new Map(operations.map((o) => [o.operationId, o]));
const placeholder = (path: string) => path.replace(/\{[^}]+\}/g, 'x');
const show = (res: ApiResponse) => `${res.status} ${res.text.slice(0, 240)}`;
const isEnvelope = (res: ApiResponse) => typeof res.body?.error?.message === 'string' && Array.isArray(res.body?.pending_notifications);
const required = (op: (typeof apiKeyOps)[number]) => requiredPermissions(op.permission);

describe('permissions (from the operation declarations)', () => {
  let admin: TestCustomer;
  beforeAll(async () => {
    admin = await newCustomer();
  });

  it('every API-key operation declares a permission, or is on the commented allow-list', () => {
    const unchecked = apiKeyOps.filter((o) => !o.permission && !(o.operationId in PERMISSION_FREE)).map((o) => `${o.operationId} (${o.method} ${o.path})`);
    expect(unchecked, 'API-key operations without a permission check: declare one, or allow-list them with a reason in cases.ts').toEqual([]);
    for (const id of Object.keys(PERMISSION_FREE)) {
      expect(byId.get(id), `stale allow-list entry ${id}`).toBeDefined();
      expect(byId.get(id)!.permission, `${id} declares a permission: drop it from the allow-list`).toBeUndefined();
    }
  });

  it('an agent with every permission except the required one(s) gets 403 permission_denied:<perm>, on every operation', async () => {
    const checked = apiKeyOps.filter((o) => o.permission);
    const keys = new Map<string, string>();
    for (const perms of new Set(checked.map((o) => required(o).join(',')))) {
      const [agent] = await directAgents(admin, 1, ALL_PERMISSIONS.filter((p) => !perms.split(',').includes(p)));
      keys.set(perms, agent.key);
    }
    const failures: string[] = [];
    for (const op of checked) {
      // the permission is checked before any input is read, so placeholder ids and an empty body do
      const res = await api(op.method, placeholder(op.path), { key: keys.get(required(op).join(',')), ip: ip(), ...(op.method === 'GET' ? {} : { body: {} }) });
      if (res.status !== 403 || res.body?.error?.code !== `permission_denied:${required(op)[0]}` || !isEnvelope(res)) failures.push(`${op.operationId}: ${show(res)}`);
    }
    expect(failures).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(30);
  });

  it('an operation that accepts any of several permissions lets through an agent holding only one of them', async () => {
    const anyOf = apiKeyOps.filter((o) => required(o).length > 1);
    expect(anyOf.map((o) => o.operationId).sort()).toEqual(['getBooking', 'getBookingProposal', 'getBookingReminders', 'getHold', 'getMeetingClass', 'getPool', 'getPoolAssignments', 'listBookings', 'listHolds', 'listMeetingClasses', 'listPools']);
    const failures: string[] = [];
    for (const op of anyOf) {
      for (const perm of required(op)) {
        const [agent] = await directAgents(admin, 1, [perm]);
        const res = await api(op.method, placeholder(op.path), { key: agent.key, ip: ip() });
        // past the permission check: the placeholder id is unknown (a list answers 200)
        const passed = op.path.includes('{') ? res.status === 404 && isEnvelope(res) : res.status === 200;
        if (!passed) failures.push(`${op.operationId} with only ${perm}: ${show(res)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('owner scope (a user:<other owner> agent with every permission)', () => {
  let w: World;
  let scoped: string;
  beforeAll(async () => {
    w = await buildWorld(ip);
    [{ key: scoped }] = await directAgents(w.admin, 1, ALL_PERMISSIONS, `user:${w.otherOwnerEmail}`);
  }, 120_000);

  it('every API-key operation has an owner-scope case or a stated exemption (a new endpoint must be added)', () => {
    expect(apiKeyOps.filter((o) => !(o.operationId in OWNER_SCOPE_CASES)).map((o) => `${o.operationId} (${o.method} ${o.path})`)).toEqual([]);
    expect(Object.keys(OWNER_SCOPE_CASES).filter((id) => byId.get(id)?.auth !== 'api_key'), 'stale entries').toEqual([]);
  });

  it('works for its own owner (control: the agent and its key are fine)', async () => {
    const own = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(w.otherOwnerEmail)}`, { key: scoped, ip: ip() });
    expect(own.status, own.text).toBe(200);
    const implicit = await api('GET', '/v1/schedule-rules', { key: scoped, ip: ip() });
    expect(implicit.body.owner_email, implicit.text).toBe(w.otherOwnerEmail);
  });

  it('gets 403 owner_scope_denied on every operation that acts on another owner or on customer-wide administration', async () => {
    const cases = apiKeyOps
      .map((op) => ({ op, c: OWNER_SCOPE_CASES[op.operationId] }))
      .filter((x): x is { op: (typeof apiKeyOps)[number]; c: Exclude<typeof x.c, { exempt: string }> } => typeof x.c === 'function')
      .sort((a, b) => Number(a.op.method === 'DELETE') - Number(b.op.method === 'DELETE')); // destructive probes last
    const failures: string[] = [];
    for (const { op, c } of cases) {
      const probe = c(w);
      const res = await api(op.method, probe.path, { key: scoped, ip: ip(), ...(op.method === 'GET' ? {} : { body: probe.body ?? {} }) });
      if (res.status !== 403 || res.body?.error?.code !== 'owner_scope_denied' || !isEnvelope(res)) failures.push(`${op.operationId} ${op.method} ${probe.path}: ${show(res)}`);
    }
    expect(failures).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(35);
  });
});

describe('reading a hold or a booking by id (docs/api.md "Permissions")', () => {
  let w: World;
  beforeAll(async () => {
    w = await buildWorld(ip);
  }, 120_000);
  const read = async (permissions: Permission[], ownerScope = 'org:*') => {
    const [{ key }] = await directAgents(w.admin, 1, permissions, ownerScope);
    const hold = await api('GET', `/v1/holds/${w.holdId}`, { key, ip: ip() });
    const booking = await api('GET', `/v1/bookings/${w.bookingId}`, { key, ip: ip() });
    return { hold, booking };
  };

  it('an agent with no permission reads neither (no attendee emails leak)', async () => {
    const { hold, booking } = await read([]);
    expect([hold.status, hold.body?.error?.code], hold.text).toEqual([403, 'permission_denied:create_holds']);
    expect([booking.status, booking.body?.error?.code], booking.text).toEqual([403, 'permission_denied:create_bookings']);
    expect(booking.text).not.toContain('@');
  });

  it('read_availability reads both; create_holds reads holds; create_bookings reads bookings', async () => {
    const reader = await read(['read_availability']);
    expect([reader.hold.status, reader.booking.status], reader.hold.text + reader.booking.text).toEqual([200, 200]);
    expect([reader.hold.body.hold_id, reader.booking.body.booking_id]).toEqual([w.holdId, w.bookingId]);
    const holder = await read(['create_holds']);
    expect([holder.hold.status, holder.booking.status]).toEqual([200, 403]);
    const booker = await read(['create_bookings']);
    expect([booker.hold.status, booker.booking.status]).toEqual([403, 200]);
  });

  it('the owner scope still applies to a permitted agent', async () => {
    const { hold, booking } = await read(['read_availability'], `user:${w.otherOwnerEmail}`);
    expect([hold.body?.error?.code, booking.body?.error?.code]).toEqual(['owner_scope_denied', 'owner_scope_denied']);
  });
});
