import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { audienceMembers, requesterIdentities, verifiedDomains } from '@/db/schema';
import { audited, type AdminAction, type AdminChange } from '../../adminAudit';
import { DomainError } from '../../errors';
import { isUuid, newId, randomToken } from '../../ids';
import { txtRecordMatches, type ResolverAddress } from '../dns';
import { afterCursor, allOf, notFound, PG_FOREIGN_KEY_VIOLATION, pageOf, requireOrgScope, type Actor, type Page, type PageQuery } from './common';
import { normalizeDomain } from './validation';

export type DomainRow = typeof verifiedDomains.$inferSelect;
export type DomainView = {
  domain_id: string;
  domain: string;
  status: 'pending' | 'verified';
  challenge: { record_name: string; record_value: string };
  created_at: string;
  verified_at: string | null;
};

/** Where the challenge goes and what it says: `_scheduler-challenge.<domain>` TXT `scheduler-verification=<token>`. */
const CHALLENGE_LABEL = '_scheduler-challenge';
const CHALLENGE_PREFIX = 'scheduler-verification';

export function domainView(d: DomainRow): DomainView {
  return {
    domain_id: d.id,
    domain: d.domain,
    status: d.status,
    challenge: { record_name: d.challengeName, record_value: d.challengeValue },
    created_at: d.createdAt.toISOString(),
    verified_at: d.verifiedAt?.toISOString() ?? null,
  };
}

function domainChange(action: AdminAction, d: DomainRow, now: Date): AdminChange {
  return { action, customerId: d.customerId, details: { domain_id: d.id, domain: d.domain, status: d.status }, at: now };
}

export async function createDomain(db: Executor, customerId: string, actor: Actor, input: { domain: string }, now: Date): Promise<DomainRow> {
  return audited(db, actor, (tx) => insertDomain(tx, customerId, actor, input, now), (d) => domainChange('domain.create', d, now));
}

async function insertDomain(db: Executor, customerId: string, actor: Actor, input: { domain: string }, now: Date): Promise<DomainRow> {
  requireOrgScope(actor);
  const domain = normalizeDomain(input.domain);
  const duplicate = () => new DomainError('duplicate_domain', `A challenge for ${domain} already exists`);
  if (await findDomainByName(db, customerId, domain)) throw duplicate();
  try {
    const [row] = await db
      .insert(verifiedDomains)
      .values({
        id: newId(),
        customerId,
        domain,
        status: 'pending',
        challengeName: `${CHALLENGE_LABEL}.${domain}`,
        challengeValue: `${CHALLENGE_PREFIX}=${randomToken()}`,
        createdAt: now,
      })
      .returning();
    return row;
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'verified_domains_customer_domain_key')) throw duplicate();
    throw err;
  }
}

async function getDomain(db: Executor, customerId: string, actor: Actor, domainId: string): Promise<DomainRow> {
  requireOrgScope(actor);
  if (!isUuid(domainId)) throw notFound('Domain');
  const [row] = await db
    .select()
    .from(verifiedDomains)
    .where(and(eq(verifiedDomains.id, domainId), eq(verifiedDomains.customerId, customerId)))
    .limit(1);
  if (!row) throw notFound('Domain');
  return row;
}

export async function listDomains(db: Executor, customerId: string, actor: Actor, q: PageQuery): Promise<Page<DomainRow>> {
  requireOrgScope(actor);
  const rows = await db
    .select()
    .from(verifiedDomains)
    .where(allOf(eq(verifiedDomains.customerId, customerId), afterCursor(verifiedDomains.id, q.cursor)))
    .orderBy(asc(verifiedDomains.id))
    .limit(q.limit + 1);
  return pageOf(rows, q.limit);
}

/**
 * Look the challenge up in DNS (through `resolver`, or the system resolver)
 * and mark the domain verified when a TXT record equals it exactly. A domain
 * already verified stays verified without a new look-up. Anything else,
 * including a failing resolver, is 422 domain_not_verified saying what was
 * expected where.
 */
export async function verifyDomain(db: Executor, customerId: string, actor: Actor, domainId: string, resolver: ResolverAddress, now: Date): Promise<DomainRow> {
  const d = await getDomain(db, customerId, actor, domainId);
  if (d.status === 'verified') return d;
  const result = await txtRecordMatches(d.challengeName, d.challengeValue, resolver);
  if (!result.matched) {
    const seen = result.failure
      ? `the DNS look-up failed (${result.failure})`
      : result.found.length
        ? `found ${result.found.length} TXT record(s) there, none equal to it`
        : 'found no TXT record there';
    throw new DomainError('domain_not_verified', `Expected a TXT record ${JSON.stringify(d.challengeValue)} at ${d.challengeName}; ${seen}`, {
      details: { record_name: d.challengeName, record_value: d.challengeValue },
    });
  }
  // The DNS look-up above runs outside any transaction; the change and its audit row commit together.
  return audited(
    db,
    actor,
    async (tx) => (await tx.update(verifiedDomains).set({ status: 'verified', verifiedAt: now }).where(eq(verifiedDomains.id, d.id)).returning())[0],
    (row) => domainChange('domain.verify', row, now),
  );
}

/** Delete a domain nothing refers to; identities or audience members using it: 409 domain_in_use. */
export async function deleteDomain(db: Executor, customerId: string, actor: Actor, domainId: string, now: Date): Promise<DomainRow> {
  return audited(db, actor, (tx) => removeDomain(tx, customerId, actor, domainId), (d) => domainChange('domain.delete', d, now));
}

async function removeDomain(db: Executor, customerId: string, actor: Actor, domainId: string): Promise<DomainRow> {
  const d = await getDomain(db, customerId, actor, domainId);
  const inUse = () => new DomainError('domain_in_use', `${d.domain} is still used by requester identities or audience members; remove them first`);
  const [identity] = await db.select({ id: requesterIdentities.id }).from(requesterIdentities).where(eq(requesterIdentities.domainId, d.id)).limit(1);
  const [member] = await db.select({ id: audienceMembers.id }).from(audienceMembers).where(eq(audienceMembers.domainId, d.id)).limit(1);
  if (identity || member) throw inUse();
  try {
    await db.delete(verifiedDomains).where(eq(verifiedDomains.id, d.id));
  } catch (err) {
    // A reference added since the check: the foreign keys (ON DELETE RESTRICT) refuse.
    if (isConstraintViolation(err, PG_FOREIGN_KEY_VIOLATION)) throw inUse();
    throw err;
  }
  return d;
}

/** The customer's record of a domain (normalized name), if any. */
export async function findDomainByName(db: Executor, customerId: string, domain: string): Promise<DomainRow | undefined> {
  const [row] = await db
    .select()
    .from(verifiedDomains)
    .where(and(eq(verifiedDomains.customerId, customerId), eq(verifiedDomains.domain, domain)))
    .limit(1);
  return row;
}

export function domainNotVerified(d: DomainRow): DomainError {
  return new DomainError('domain_not_verified', `The DNS challenge of ${d.domain} is not verified yet (TXT ${JSON.stringify(d.challengeValue)} at ${d.challengeName})`);
}
