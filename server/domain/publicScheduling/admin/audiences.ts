import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { allocations, audienceMembers, audiences, publicMeetingTypes, verifiedDomains } from '@/db/schema';
import { normalizeEmail } from '../../access';
import { audited, type AdminAction, type AdminChange } from '../../adminAudit';
import { DomainError } from '../../errors';
import { isUuid, newId } from '../../ids';
import { afterCursor, allOf, notFound, PG_FOREIGN_KEY_VIOLATION, pageOf, requireOrgScope, type Actor, type Page, type PageQuery } from './common';
import { domainNotVerified, findDomainByName } from './domains';
import { emailDomain, normalizeDomain } from './validation';

type AudienceRow = typeof audiences.$inferSelect;
export type MemberInput = { email: string } | { domain: string };
type MemberView = { email: string } | { domain: string };
export type AudienceRecord = { audience: AudienceRow; members: MemberView[] };
export type AudienceView = { audience_id: string; name: string; members: MemberView[]; created_at: string };

export function audienceView(r: AudienceRecord): AudienceView {
  return { audience_id: r.audience.id, name: r.audience.name, members: r.members, created_at: r.audience.createdAt.toISOString() };
}

type ResolvedMember = { email: string | null; domainId: string | null; view: MemberView };

/**
 * Members as stored: emails lower-cased, domains normalized and required to
 * be the customer's verified domains (unknown: 404 not_found; pending: 422
 * domain_not_verified). Duplicates collapse.
 */
async function resolveMembers(db: Executor, customerId: string, members: MemberInput[]): Promise<ResolvedMember[]> {
  const out = new Map<string, ResolvedMember>();
  for (const m of members) {
    if ('email' in m) {
      const email = normalizeEmail(m.email);
      out.set(`e:${email}`, { email, domainId: null, view: { email } });
    } else {
      const name = normalizeDomain(m.domain);
      const d = await findDomainByName(db, customerId, name);
      if (!d) throw notFound(`Domain ${name}`);
      if (d.status !== 'verified') throw domainNotVerified(d);
      out.set(`d:${name}`, { email: null, domainId: d.id, view: { domain: name } });
    }
  }
  return [...out.values()];
}

async function membersOf(db: Executor, audienceIds: string[]): Promise<Map<string, MemberView[]>> {
  const byAudience = new Map<string, MemberView[]>(audienceIds.map((id) => [id, []]));
  if (!audienceIds.length) return byAudience;
  const rows = await db
    .select({ audienceId: audienceMembers.audienceId, email: audienceMembers.email, domain: verifiedDomains.domain })
    .from(audienceMembers)
    .leftJoin(verifiedDomains, eq(verifiedDomains.id, audienceMembers.domainId))
    .where(inArray(audienceMembers.audienceId, audienceIds))
    .orderBy(asc(audienceMembers.id));
  for (const r of rows) byAudience.get(r.audienceId)!.push(r.email !== null ? { email: r.email } : { domain: r.domain! });
  return byAudience;
}

async function insertMembers(db: Executor, audienceId: string, members: ResolvedMember[], now: Date): Promise<void> {
  if (!members.length) return;
  await db.insert(audienceMembers).values(members.map((m) => ({ id: newId(), audienceId, email: m.email, domainId: m.domainId, createdAt: now })));
}

function duplicateAudience(name: string): DomainError {
  return new DomainError('duplicate_audience', `An audience named ${JSON.stringify(name)} already exists`);
}

function audienceChange(action: AdminAction, r: AudienceRecord, now: Date): AdminChange {
  const { created_at: _created, ...details } = audienceView(r);
  return { action, customerId: r.audience.customerId, details, at: now };
}

export async function createAudience(db: Executor, customerId: string, actor: Actor, input: { name: string; members: MemberInput[] }, now: Date): Promise<AudienceRecord> {
  return audited(db, actor, (tx) => insertAudience(tx, customerId, actor, input, now), (r) => audienceChange('audience.create', r, now));
}

async function insertAudience(db: Executor, customerId: string, actor: Actor, input: { name: string; members: MemberInput[] }, now: Date): Promise<AudienceRecord> {
  requireOrgScope(actor);
  const members = await resolveMembers(db, customerId, input.members);
  if (await findAudience(db, customerId, { name: input.name })) throw duplicateAudience(input.name);
  try {
    return await db.transaction(async (tx) => {
      const [audience] = await tx.insert(audiences).values({ id: newId(), customerId, name: input.name, createdAt: now }).returning();
      await insertMembers(tx, audience.id, members, now);
      return { audience, members: members.map((m) => m.view) };
    });
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'audiences_customer_name_key')) throw duplicateAudience(input.name);
    throw err;
  }
}

async function findAudience(db: Executor, customerId: string, by: { id: string } | { name: string }): Promise<AudienceRow | undefined> {
  const [row] = await db
    .select()
    .from(audiences)
    .where(and(eq(audiences.customerId, customerId), 'id' in by ? eq(audiences.id, by.id) : eq(audiences.name, by.name)))
    .limit(1);
  return row;
}

async function getAudience(db: Executor, customerId: string, actor: Actor, audienceId: string): Promise<AudienceRecord> {
  requireOrgScope(actor);
  const audience = isUuid(audienceId) ? await findAudience(db, customerId, { id: audienceId }) : undefined;
  if (!audience) throw notFound('Audience');
  return { audience, members: (await membersOf(db, [audience.id])).get(audience.id)! };
}

export async function listAudiences(db: Executor, customerId: string, actor: Actor, q: PageQuery): Promise<Page<AudienceRecord & { id: string }>> {
  requireOrgScope(actor);
  const rows = await db
    .select()
    .from(audiences)
    .where(allOf(eq(audiences.customerId, customerId), afterCursor(audiences.id, q.cursor)))
    .orderBy(asc(audiences.id))
    .limit(q.limit + 1);
  const page = pageOf(rows, q.limit);
  const members = await membersOf(db, page.items.map((a) => a.id));
  return { items: page.items.map((a) => ({ id: a.id, audience: a, members: members.get(a.id)! })), next_cursor: page.next_cursor };
}

/** Rename an audience and/or replace its members (the list given is the whole new list). */
export async function updateAudience(
  db: Executor,
  customerId: string,
  actor: Actor,
  audienceId: string,
  patch: { name?: string; members?: MemberInput[] },
  now: Date,
): Promise<AudienceRecord> {
  return audited(db, actor, (tx) => changeAudience(tx, customerId, actor, audienceId, patch, now), (r) => audienceChange('audience.update', r, now));
}

async function changeAudience(
  db: Executor,
  customerId: string,
  actor: Actor,
  audienceId: string,
  patch: { name?: string; members?: MemberInput[] },
  now: Date,
): Promise<AudienceRecord> {
  const current = await getAudience(db, customerId, actor, audienceId);
  const members = patch.members ? await resolveMembers(db, customerId, patch.members) : null;
  const name = patch.name ?? current.audience.name;
  if (name !== current.audience.name && (await findAudience(db, customerId, { name }))) throw duplicateAudience(name);
  try {
    return await db.transaction(async (tx) => {
      const [audience] = await tx.update(audiences).set({ name }).where(eq(audiences.id, current.audience.id)).returning();
      if (!members) return { audience, members: current.members };
      await tx.delete(audienceMembers).where(eq(audienceMembers.audienceId, audience.id));
      await insertMembers(tx, audience.id, members, now);
      return { audience, members: members.map((m) => m.view) };
    });
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'audiences_customer_name_key')) throw duplicateAudience(name);
    throw err;
  }
}

/**
 * Delete an audience and its members. Meeting types or allocations naming it
 * must be changed first (409 audience_in_use says which), so deleting never
 * silently widens who may see an audience-only type.
 */
export async function deleteAudience(db: Executor, customerId: string, actor: Actor, audienceId: string, now: Date): Promise<AudienceRecord> {
  return audited(db, actor, (tx) => removeAudience(tx, customerId, actor, audienceId), (r) => audienceChange('audience.delete', r, now));
}

async function removeAudience(db: Executor, customerId: string, actor: Actor, audienceId: string): Promise<AudienceRecord> {
  const current = await getAudience(db, customerId, actor, audienceId);
  const types = await db
    .select({ slug: publicMeetingTypes.slug })
    .from(publicMeetingTypes)
    .where(eq(publicMeetingTypes.audienceId, current.audience.id))
    .limit(5);
  const [allocation] = await db.select({ id: allocations.id }).from(allocations).where(eq(allocations.audienceId, current.audience.id)).limit(1);
  if (types.length || allocation) {
    const users = [types.length ? `meeting types (${types.map((t) => t.slug).join(', ')})` : null, allocation ? 'allocations' : null].filter(Boolean).join(' and ');
    throw new DomainError('audience_in_use', `Audience ${JSON.stringify(current.audience.name)} is still used by ${users}; change or delete them first`);
  }
  try {
    await db.delete(audiences).where(eq(audiences.id, current.audience.id));
  } catch (err) {
    // A meeting type or allocation naming it since the check: the foreign keys (ON DELETE RESTRICT) refuse.
    if (isConstraintViolation(err, PG_FOREIGN_KEY_VIOLATION)) throw new DomainError('audience_in_use', `Audience ${JSON.stringify(current.audience.name)} is still in use`);
    throw err;
  }
  return current;
}

/**
 * Requester side: whether `email` belongs to the audience, directly or
 * through a verified domain member equal to the email's domain.
 */
export async function audienceMembership(db: Executor, audienceId: string, who: { email: string }): Promise<boolean> {
  const email = normalizeEmail(who.email);
  const domain = emailDomain(email);
  const [hit] = await db
    .select({ id: audienceMembers.id })
    .from(audienceMembers)
    .leftJoin(verifiedDomains, eq(verifiedDomains.id, audienceMembers.domainId))
    .where(
      and(
        eq(audienceMembers.audienceId, audienceId),
        or(eq(audienceMembers.email, email), domain ? and(eq(verifiedDomains.domain, domain), eq(verifiedDomains.status, 'verified')) : undefined),
      ),
    )
    .limit(1);
  return !!hit;
}
