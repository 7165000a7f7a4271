import { beforeAll, describe, expect, it } from 'vitest';
import { is, sql, SQL } from 'drizzle-orm';
import { getDb, type Db } from '@/server/db';
import { pgErrorInfo } from '@/db/errors';
import { newId } from '@/server/domain/ids';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { createOwner } from '@/server/domain/ownerService';
import { newCustomer, uniqueEmail } from '../../helpers/app';

/**
 * What the database itself refuses (migration 0006_database_invariants,
 * docs/architecture.md "What the database guarantees"): each statement below
 * breaks one rule through raw SQL, past every domain check, and PostgreSQL
 * answers with the constraint's name.
 */
const CHECK_VIOLATION = '23514';
const FOREIGN_KEY_VIOLATION = '23503';

type Tenant = { customerId: string; agentId: string; ownerId: string; classId: string; calendarId: string };

let db: Db;
let a: Tenant;
let b: Tenant;
/** Rows of tenant `a`, one per table the checks cover. */
const ids = {
  hold: newId(),
  booking: newId(),
  link: newId(),
  type: newId(),
  allocation: newId(),
  audit: newId(),
  domain: newId(),
  idempotency: newId(),
  notification: newId(),
  proposal: newId(),
  verification: newId(),
  apiKey: newId(),
};

const T = (h: number) => new Date(Date.UTC(2032, 2, 2, h)).toISOString();

function value(v: unknown): SQL {
  return is(v, SQL) ? v : sql`${v}`;
}

async function insert(table: string, values: Record<string, unknown>): Promise<void> {
  const cols = Object.keys(values);
  await db.execute(
    sql`insert into ${sql.identifier(table)} (${sql.join(cols.map((c) => sql.identifier(c)), sql`, `)}) values (${sql.join(cols.map((c) => value(values[c])), sql`, `)})`,
  );
}

/** Run a statement (autocommit); the refusal's code and constraint, or null when it was accepted. */
async function refusal(statement: SQL): Promise<{ code?: string; constraint?: string } | null> {
  try {
    await db.execute(statement);
    return null;
  } catch (err) {
    return pgErrorInfo(err);
  }
}

const set = (table: string, column: string, v: unknown, id: string) =>
  sql`update ${sql.identifier(table)} set ${sql.identifier(column)} = ${value(v)} where id = ${id}`;

async function tenant(): Promise<Tenant> {
  const c = await newCustomer();
  const owner = await createOwner(db, c.customerId, { email: uniqueEmail('inv'), time_zone: 'UTC' });
  const mc = await createMeetingClass(db, c.customerId, { name: 'internal', priority: 10 });
  return { customerId: c.customerId, agentId: c.agentId, ownerId: owner.id, classId: mc.id, calendarId: (await rows<{ id: string }>(sql`select id from calendars where owner_id = ${owner.id}`))[0].id };
}

/** Result rows on either driver (postgres.js answers an array, PGlite `{ rows }`). */
async function rows<R>(statement: SQL): Promise<R[]> {
  const res = (await db.execute(statement)) as unknown as { rows?: R[] } & R[];
  return res.rows ?? res;
}

beforeAll(async () => {
  db = await getDb();
  a = await tenant();
  b = await tenant();
  const claim = { customer_id: a.customerId, owner_id: a.ownerId, meeting_class_id: a.classId, agent_id: a.agentId };
  await insert('claims', { ...claim, id: ids.hold, kind: 'hold', status: 'active', start_at: T(9), end_at: T(10), hold_scope: 'candidate', duration_minutes: 60, expires_at: T(8) });
  await insert('claims', { ...claim, id: ids.booking, kind: 'booking', status: 'confirmed', start_at: T(11), end_at: T(12) });
  await insert('public_links', { id: ids.link, customer_id: a.customerId, owner_id: a.ownerId, alias: `inv-${ids.link.slice(-12)}` });
  await insert('public_meeting_types', { id: ids.type, customer_id: a.customerId, link_id: ids.link, slug: 'intro', title: 'Intro', duration_minutes: sql.raw(`'{30}'`), meeting_class_id: a.classId });
  await insert('allocations', { id: ids.allocation, customer_id: a.customerId, link_id: ids.link, meeting_type_id: ids.type, limit: 3, period: 'week' });
  await insert('audit_log', { id: ids.audit, customer_id: a.customerId, action: 'booking.create', outcome: 'accept', actor_kind: 'system' });
  await insert('verified_domains', { id: ids.domain, customer_id: a.customerId, domain: 'inv.example', challenge_name: '_x', challenge_value: 'y' });
  await insert('idempotency_records', { id: ids.idempotency, agent_id: a.agentId, method: 'POST', path: '/v1/holds', key: ids.idempotency, fingerprint: 'f', state: 'done', expires_at: T(23) });
  await insert('notifications', { id: ids.notification, customer_id: a.customerId, agent_id: a.agentId, kind: 'hold.expired', data: sql.raw(`'{}'::jsonb`) });
  await insert('booking_proposals', { id: ids.proposal, customer_id: a.customerId, owner_id: a.ownerId, origin: 'agent', status: 'pending_review', meeting_class_id: a.classId });
  await insert('contact_verifications', { id: ids.verification, customer_id: a.customerId, proposal_id: ids.proposal, token_hash: ids.verification, email: 'r@x.example', expires_at: T(23) });
  await insert('api_keys', { id: ids.apiKey, customer_id: a.customerId, agent_id: a.agentId, key_hash: ids.apiKey, prefix: 'ak_inv' });
});

describe('text enum columns hold only their values (CHECK)', () => {
  const cases: [table: string, column: string, row: keyof typeof ids | 'owner' | 'class' | 'calendar', constraint?: string][] = [
    ['allocations', 'period', 'allocation'],
    ['audit_log', 'outcome', 'audit'],
    ['audit_log', 'actor_kind', 'audit'],
    ['calendars', 'status', 'calendar'],
    ['claims', 'kind', 'booking'],
    // A status no claim has breaks the kind/status pairing first (checks run in name order).
    ['claims', 'status', 'booking', 'claims_kind_status'],
    ['claims', 'hold_scope', 'hold'],
    ['claims', 'source', 'booking'],
    ['verified_domains', 'status', 'domain'],
    ['idempotency_records', 'state', 'idempotency'],
    ['meeting_classes', 'preempt_policy', 'class'],
    ['notifications', 'kind', 'notification'],
    ['owners', 'role', 'owner'],
    ['booking_proposals', 'origin', 'proposal'],
    ['booking_proposals', 'status', 'proposal'],
    ['contact_verifications', 'status', 'verification'],
    ['public_meeting_types', 'public_preempt_policy', 'type'],
    ['public_meeting_types', 'visibility', 'type'],
  ];
  it('covers the 18 enum columns', () => expect(cases).toHaveLength(18));
  it.each(cases)('%s.%s refuses a value outside its enum', async (table, column, row, constraint) => {
    const id = row === 'owner' ? a.ownerId : row === 'class' ? a.classId : row === 'calendar' ? a.calendarId : ids[row];
    expect(await refusal(set(table, column, 'no_such_value', id))).toEqual({ code: CHECK_VIOLATION, constraint: constraint ?? `${table}_${column}_check` });
  });
});

describe('claims: kinds, statuses and their columns (CHECK)', () => {
  const check = async (statement: SQL, constraint: string) => expect(await refusal(statement)).toEqual({ code: CHECK_VIOLATION, constraint });

  it('pairs each kind with its own statuses', async () => {
    await check(set('claims', 'status', 'active', ids.booking), 'claims_kind_status');
    await check(set('claims', 'status', 'confirmed', ids.hold), 'claims_kind_status');
  });
  it('gives every hold a scope and an expiry, and a booking none of the hold fields', async () => {
    await check(set('claims', 'expires_at', null, ids.hold), 'claims_hold_fields');
    await check(set('claims', 'hold_scope', null, ids.hold), 'claims_hold_fields');
    await check(set('claims', 'hold_scope', 'candidate', ids.booking), 'claims_hold_fields');
    await check(set('claims', 'expires_at', T(8), ids.booking), 'claims_hold_fields');
    await check(set('claims', 'duration_minutes', 30, ids.booking), 'claims_hold_fields');
  });
  it('keeps the booking fields off holds', async () => {
    await check(set('claims', 'hold_id', ids.hold, ids.hold), 'claims_booking_fields');
    await check(set('claims', 'proposal_id', ids.proposal, ids.hold), 'claims_booking_fields');
  });
  it('names the booking exactly of a promoted hold, and the preemptor only of a preempted claim', async () => {
    await check(set('claims', 'status', 'promoted', ids.hold), 'claims_promoted_booking');
    await check(set('claims', 'promoted_booking_id', ids.booking, ids.hold), 'claims_promoted_booking');
    await check(set('claims', 'preempted_by_claim_id', ids.hold, ids.booking), 'claims_preempted_by');
    await check(set('claims', 'duration_minutes', 0, ids.hold), 'claims_duration_positive');
  });
  it('keeps buffers within 0 to 240 minutes on claims and meeting classes (docs/arbitration.md "Buffers")', async () => {
    await check(set('claims', 'buffer_before_minutes', -1, ids.booking), 'claims_buffers_check');
    await check(set('claims', 'buffer_after_minutes', 241, ids.hold), 'claims_buffers_check');
    await check(set('meeting_classes', 'buffer_after_minutes', 241, a.classId), 'meeting_classes_buffers_check');
    expect(await refusal(set('claims', 'buffer_after_minutes', 240, ids.booking))).toBeNull();
  });
  it('accepts the rows the services write (a promoted hold naming its booking)', async () => {
    expect(await refusal(sql`update claims set status = 'promoted', promoted_booking_id = ${ids.booking} where id = ${ids.hold}`)).toBeNull();
    expect(await refusal(sql`update claims set status = 'active', promoted_booking_id = null where id = ${ids.hold}`)).toBeNull();
  });
});

describe('pointers to other claims and proposals (FOREIGN KEY, checked at commit)', () => {
  const fk = async (statement: SQL, constraint: string) => expect(await refusal(statement)).toEqual({ code: FOREIGN_KEY_VIOLATION, constraint });
  const missing = newId();

  it('refuses a pointer to a claim or proposal that does not exist', async () => {
    await fk(set('claims', 'hold_id', missing, ids.booking), 'claims_hold_fk');
    await fk(set('claims', 'proposal_id', missing, ids.booking), 'claims_proposal_fk');
    await fk(sql`update claims set status = 'promoted', promoted_booking_id = ${missing} where id = ${ids.hold}`, 'claims_promoted_booking_fk');
    await fk(sql`update claims set status = 'preempted', preempted_by_claim_id = ${missing} where id = ${ids.booking}`, 'claims_preempted_by_fk');
    await fk(set('booking_proposals', 'booking_id', missing, ids.proposal), 'booking_proposals_booking_fk');
  });

  it('lets a transaction name a claim it inserts later (a preemption before its preemptor)', async () => {
    const preemptor = newId();
    const victim = newId();
    await insert('claims', { id: victim, customer_id: a.customerId, owner_id: a.ownerId, kind: 'booking', status: 'confirmed', start_at: T(14), end_at: T(15) });
    await db.transaction(async (tx) => {
      await tx.execute(sql`update claims set status = 'preempted', preempted_by_claim_id = ${preemptor} where id = ${victim}`);
      await tx.execute(
        sql`insert into claims (id, customer_id, owner_id, kind, status, start_at, end_at) values (${preemptor}, ${a.customerId}, ${a.ownerId}, 'booking', 'confirmed', ${T(14)}, ${T(15)})`,
      );
    });
    expect((await rows<{ p: string }>(sql`select preempted_by_claim_id as p from claims where id = ${victim}`))[0].p).toBe(preemptor);
  });
});

describe("rows about an owner, class or agent stay in that owner's, class's or agent's customer (composite FOREIGN KEY)", () => {
  const fk = async (statement: SQL, constraint: string) => expect(await refusal(statement)).toEqual({ code: FOREIGN_KEY_VIOLATION, constraint });

  it("refuses another customer's owner", async () => {
    await fk(set('claims', 'owner_id', b.ownerId, ids.booking), 'claims_owner_fk');
    await fk(sql`update calendars set owner_id = ${b.ownerId}, is_primary = false where id = ${a.calendarId}`, 'calendars_owner_fk');
    await fk(set('public_links', 'owner_id', b.ownerId, ids.link), 'public_links_owner_fk');
    await fk(set('booking_proposals', 'owner_id', b.ownerId, ids.proposal), 'booking_proposals_owner_fk');
  });
  it("refuses another customer's meeting class", async () => {
    await fk(set('claims', 'meeting_class_id', b.classId, ids.booking), 'claims_meeting_class_fk');
    await fk(set('public_meeting_types', 'meeting_class_id', b.classId, ids.type), 'public_meeting_types_meeting_class_fk');
    await fk(set('booking_proposals', 'meeting_class_id', b.classId, ids.proposal), 'booking_proposals_meeting_class_fk');
  });
  it("refuses another customer's agent", async () => {
    await fk(set('api_keys', 'agent_id', b.agentId, ids.apiKey), 'api_keys_agent_fk');
    await fk(set('notifications', 'agent_id', b.agentId, ids.notification), 'notifications_agent_fk');
  });
});

describe('agents and the audit log (CHECK)', () => {
  const check = async (statement: SQL, constraint: string) => expect(await refusal(statement)).toEqual({ code: CHECK_VIOLATION, constraint });

  it('grants only known permissions and scopes', async () => {
    await check(sql`update agents set permissions = array['read_availability', 'root']::text[] where id = ${a.agentId}`, 'agents_permissions_check');
    await check(set('agents', 'owner_scope', 'everyone', a.agentId), 'agents_owner_scope_check');
  });
  it('records an owner actor with both id and email', async () => {
    await check(sql`update audit_log set actor_kind = 'owner', actor_owner_id = ${a.ownerId} where id = ${ids.audit}`, 'audit_log_actor_owner');
  });
  it("sets exactly the identity the actor's kind names (docs/reliability.md, \"Audit actors\")", async () => {
    await check(set('audit_log', 'agent_id', a.agentId, ids.audit), 'audit_log_actor_identity');
    await check(set('audit_log', 'actor_kind', 'agent', ids.audit), 'audit_log_actor_identity');
    await check(set('audit_log', 'actor_kind', 'requester', ids.audit), 'audit_log_actor_identity');
    await check(sql`update audit_log set actor_kind = 'owner', agent_id = ${a.agentId}, actor_owner_id = ${a.ownerId}, actor_owner_email = 'o@x.example' where id = ${ids.audit}`, 'audit_log_actor_identity');
    expect(await refusal(sql`update audit_log set actor_kind = 'requester', actor_requester_email = 'r@x.example' where id = ${ids.audit}`)).toBeNull();
    expect(await refusal(sql`update audit_log set actor_kind = 'system', actor_requester_email = null where id = ${ids.audit}`)).toBeNull();
  });
});
