import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { claims, owners, poolAssignments, poolMembers, pools } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail, parseOwnerScope } from '../access';
import { audited, type AdminActor } from '../adminAudit';
import { DomainError, invalidField } from '../errors';
import { isUuid, newId } from '../ids';
import type { MemberLoad } from './assignment';

/**
 * Pools: named, customer-scoped sets of owners with weights (docs/groups.md, "Pools").
 * Administration (create, read, change, delete, with their audit rows) and the figures the
 * assignment rule and the assignments report read.
 */

type PoolMemberInput = { owner_email: string; weight: number };
export type PoolInput = { name: string; members: PoolMemberInput[] };
export type PoolView = { pool_id: string; name: string; members: { owner_email: string; weight: number }[]; created_at: string };
/** A pool as the scheduling calls use it: its members with owner ids. */
export type LoadedPool = { id: string; name: string; createdAt: Date; members: { ownerId: string; email: string; weight: number }[] };

const DAY = 86_400_000;
/** The trailing window of the load a pool balances (docs/groups.md, "Pools"). */
const LOAD_WINDOW_MS = 7 * DAY;
/** The default period of the assignments report. */
const REPORT_DEFAULT_MS = 30 * DAY;

export function poolView(p: LoadedPool): PoolView {
  return { pool_id: p.id, name: p.name, members: p.members.map((m) => ({ owner_email: m.email, weight: m.weight })), created_at: p.createdAt.toISOString() };
}

/** A user-scoped agent reaches only the pools all of whose members are its owner. */
function usableBy(actor: AdminActor, pool: LoadedPool): boolean {
  if (actor?.kind !== 'agent') return true;
  const scope = parseOwnerScope(actor.ownerScope);
  return scope?.kind === 'org' || pool.members.every((m) => scope?.kind === 'user' && scope.email === m.email);
}

/** An agent may use (or administer) a pool only when its owner_scope covers every member. */
function assertPoolInScope(actor: AdminActor, pool: LoadedPool): void {
  if (actor?.kind !== 'agent') return;
  for (const m of pool.members) assertOwnerInScope(actor, m.email);
}

async function loadPools(db: Executor, customerId: string, ids?: string[]): Promise<LoadedPool[]> {
  const rows = await db
    .select({ id: pools.id, name: pools.name, createdAt: pools.createdAt })
    .from(pools)
    .where(ids ? and(eq(pools.customerId, customerId), inArray(pools.id, ids)) : eq(pools.customerId, customerId))
    .orderBy(asc(pools.name));
  if (!rows.length) return [];
  const members = await db
    .select({ poolId: poolMembers.poolId, ownerId: poolMembers.ownerId, email: owners.email, weight: poolMembers.weight })
    .from(poolMembers)
    .innerJoin(owners, eq(owners.id, poolMembers.ownerId))
    .where(inArray(poolMembers.poolId, rows.map((r) => r.id)))
    .orderBy(asc(owners.email));
  return rows.map((r) => ({ ...r, members: members.filter((m) => m.poolId === r.id).map(({ ownerId, email, weight }) => ({ ownerId, email, weight })) }));
}

/** The customer's pool with this id (a foreign or malformed id answers POOL_NOT_FOUND), scope-checked for agents. */
export async function getPool(db: Executor, customerId: string, actor: AdminActor, poolId: string): Promise<LoadedPool> {
  const [pool] = isUuid(poolId) ? await loadPools(db, customerId, [poolId]) : [];
  if (!pool) throw new DomainError('POOL_NOT_FOUND', 'Pool not found');
  assertPoolInScope(actor, pool);
  return pool;
}

/** The customer's pools by name (for a user-scoped agent: those it may use). */
export async function listPools(db: Executor, customerId: string, actor: AdminActor): Promise<LoadedPool[]> {
  return (await loadPools(db, customerId)).filter((p) => usableBy(actor, p));
}

/** The members as owner ids: each an owner of the customer, named once, in the agent's scope. */
async function resolveMembers(db: Executor, customerId: string, actor: AdminActor, members: PoolMemberInput[]): Promise<{ ownerId: string; email: string; weight: number }[]> {
  const emails = members.map((m) => normalizeEmail(m.owner_email));
  const seen = new Set<string>();
  for (const e of emails) {
    if (seen.has(e)) throw invalidField('members', `${e} is named more than once`);
    seen.add(e);
    if (actor?.kind === 'agent') assertOwnerInScope(actor, e);
  }
  const found = await db.select({ id: owners.id, email: owners.email }).from(owners).where(and(eq(owners.customerId, customerId), inArray(owners.email, emails)));
  const byEmail = new Map(found.map((o) => [o.email, o.id]));
  const missing = emails.find((e) => !byEmail.has(e));
  if (missing) throw new DomainError('OWNER_NOT_FOUND', `No calendar owner ${missing} for this customer`);
  return members.map((m, i) => ({ ownerId: byEmail.get(emails[i])!, email: emails[i], weight: m.weight }));
}

function nameTaken(name: string): DomainError {
  return new DomainError('POOL_ALREADY_EXISTS', `A pool named ${name} already exists`);
}

const facts = (p: LoadedPool) => ({ pool_id: p.id, name: p.name, members: poolView(p).members });

export async function createPool(db: Executor, customerId: string, actor: AdminActor, input: PoolInput, now: Date): Promise<LoadedPool> {
  return audited(
    db,
    actor,
    async (tx) => {
      const members = await resolveMembers(tx, customerId, actor, input.members);
      const id = newId(now.getTime());
      try {
        await tx.insert(pools).values({ id, customerId, name: input.name, createdAt: now });
      } catch (err) {
        if (isConstraintViolation(err, PG_UNIQUE_VIOLATION)) throw nameTaken(input.name);
        throw err;
      }
      await tx.insert(poolMembers).values(members.map((m) => ({ poolId: id, ownerId: m.ownerId, weight: m.weight })));
      return { id, name: input.name, createdAt: now, members: [...members].sort((a, b) => a.email.localeCompare(b.email)) };
    },
    (p) => ({ action: 'pool.create', customerId, details: facts(p), at: now }),
  );
}

/** Rename a pool and/or replace its members (weights included). */
export async function updatePool(db: Executor, customerId: string, actor: AdminActor, poolId: string, patch: Partial<PoolInput>, now: Date): Promise<LoadedPool> {
  return audited(
    db,
    actor,
    async (tx) => {
      const before = await getPool(tx, customerId, actor, poolId);
      if (patch.name !== undefined && patch.name !== before.name) {
        try {
          await tx.update(pools).set({ name: patch.name }).where(eq(pools.id, before.id));
        } catch (err) {
          if (isConstraintViolation(err, PG_UNIQUE_VIOLATION)) throw nameTaken(patch.name);
          throw err;
        }
      }
      if (patch.members) {
        const members = await resolveMembers(tx, customerId, actor, patch.members);
        await tx.delete(poolMembers).where(eq(poolMembers.poolId, before.id));
        await tx.insert(poolMembers).values(members.map((m) => ({ poolId: before.id, ownerId: m.ownerId, weight: m.weight })));
      }
      return { before, after: await getPool(tx, customerId, null, before.id) };
    },
    ({ before, after }) => ({ action: 'pool.update', customerId, details: { ...facts(after), before: facts(before) }, at: now }),
  ).then((r) => r.after);
}

export async function deletePool(db: Executor, customerId: string, actor: AdminActor, poolId: string, now: Date): Promise<LoadedPool> {
  return audited(
    db,
    actor,
    async (tx) => {
      const pool = await getPool(tx, customerId, actor, poolId);
      await tx.delete(pools).where(eq(pools.id, pool.id));
      return pool;
    },
    (p) => ({ action: 'pool.delete', customerId, details: facts(p), at: now }),
  );
}

/**
 * Per member: the minutes of confirmed bookings made through the pool in [from, to) (by when
 * the booking was made; a booking confirmed from a pool hold counts through its hold) and
 * when its last such booking was made.
 */
async function bookedThroughPool(db: Executor, poolId: string, from: Date, to: Date): Promise<Map<string, { minutes: number; last: number | null }>> {
  const f = from.toISOString();
  const t = to.toISOString();
  const rows = await db
    .select({
      ownerId: poolAssignments.ownerId,
      minutes: sql<string>`coalesce(sum(extract(epoch from (${claims.endAt} - ${claims.startAt})) / 60) filter (where ${claims.createdAt} >= ${f}::timestamptz and ${claims.createdAt} < ${t}::timestamptz), 0)`,
      last: sql<string | null>`max(${claims.createdAt}) filter (where ${claims.createdAt} < ${t}::timestamptz)`,
    })
    .from(poolAssignments)
    .innerJoin(claims, and(eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), or(eq(claims.id, poolAssignments.claimId), eq(claims.holdId, poolAssignments.claimId))))
    .where(eq(poolAssignments.poolId, poolId))
    .groupBy(poolAssignments.ownerId);
  return new Map(rows.map((r) => [r.ownerId, { minutes: Math.round(Number(r.minutes)), last: r.last === null ? null : new Date(r.last).getTime() }]));
}

/** The members with the load the assignment rule weighs at `now` (assignment.ts). */
export async function memberLoads(db: Executor, pool: LoadedPool, now: Date): Promise<MemberLoad[]> {
  const booked = await bookedThroughPool(db, pool.id, new Date(now.getTime() - LOAD_WINDOW_MS), new Date(now.getTime() + 1));
  return pool.members.map((m) => ({ ...m, loadMinutes: booked.get(m.ownerId)?.minutes ?? 0, lastBookedAt: booked.get(m.ownerId)?.last ?? null }));
}

export type AssignmentsReport = {
  from: string;
  to: string;
  members: { owner_email: string; weight: number; booked_minutes: number; share: number; target_share: number }[];
};

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : 0);

/** GET /v1/pools/{id}/assignments: each member's booked minutes through the pool in [from, to), its share against its weight's. */
export async function poolAssignmentsReport(db: Executor, customerId: string, actor: AdminActor, poolId: string, range: { from?: Date; to?: Date }, now: Date): Promise<AssignmentsReport> {
  const to = range.to ?? now;
  const from = range.from ?? new Date(to.getTime() - REPORT_DEFAULT_MS);
  if (from >= to) throw invalidField('from', 'from must be before to');
  const pool = await getPool(db, customerId, actor, poolId);
  const booked = await bookedThroughPool(db, pool.id, from, to);
  const totalMinutes = pool.members.reduce((s, m) => s + (booked.get(m.ownerId)?.minutes ?? 0), 0);
  const totalWeight = pool.members.reduce((s, m) => s + m.weight, 0);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    members: pool.members.map((m) => {
      const minutes = booked.get(m.ownerId)?.minutes ?? 0;
      return { owner_email: m.email, weight: m.weight, booked_minutes: minutes, share: ratio(minutes, totalMinutes), target_share: ratio(m.weight, totalWeight) };
    }),
  };
}

/** The pool a scheduling call names by id or name (agents pass either), scope-checked: the agent must cover every member. */
export async function resolvePool(db: Executor, customerId: string, actor: AdminActor, idOrName: string): Promise<LoadedPool> {
  const [byName] = await db.select({ id: pools.id }).from(pools).where(and(eq(pools.customerId, customerId), eq(pools.name, idOrName))).limit(1);
  return getPool(db, customerId, actor, byName?.id ?? idOrName);
}
