import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { requesterCredentials, requesterIdentities } from '@/db/schema';
import { audienceMembership, findLinkByIdOrAlias, type LinkRecord, type MeetingTypeRecord } from '../admin';
import { DomainError } from '../../errors';
import { hashSecret, SECRET_PREFIX } from '../../ids';

/**
 * Who is asking, on the requester side. Every requester-facing error is the
 * same bare not_found, whatever was missing (docs/public-scheduling.md "What public responses never contain").
 */
export type Requester = { identityId: string; customerId: string; email: string };

export function publicNotFound(what = 'Not found'): DomainError {
  return new DomainError('not_found', what);
}

/**
 * The requester behind an optional `Authorization: Bearer rc_...`. No bearer:
 * anonymous (null). A bearer that is not a live `rc_` credential (unknown,
 * revoked, another prefix such as `ak_`, garbage), or one of another customer
 * than `customerId`: 404 not_found (docs/public-scheduling.md "Addressing and credentials"), never a silent downgrade to
 * anonymous, so a requester learns their credential is not working.
 */
export async function resolveRequester(db: Executor, bearer: string | null, customerId?: string): Promise<Requester | null> {
  if (bearer === null) return null;
  if (!bearer.startsWith(SECRET_PREFIX.requesterCredential)) throw publicNotFound('Requester credential not found');
  const [row] = await db
    .select({ identityId: requesterIdentities.id, customerId: requesterIdentities.customerId, email: requesterIdentities.email })
    .from(requesterCredentials)
    .innerJoin(requesterIdentities, eq(requesterIdentities.id, requesterCredentials.identityId))
    .where(and(eq(requesterCredentials.tokenHash, hashSecret(bearer)), isNull(requesterCredentials.revokedAt)))
    .limit(1);
  if (!row || (customerId !== undefined && row.customerId !== customerId)) throw publicNotFound('Requester credential not found');
  return { ...row, email: row.email.toLowerCase() };
}

/** A live link by id or alias, or not_found. */
export async function loadPublicLink(db: Executor, idOrAlias: string): Promise<LinkRecord> {
  const found = await findLinkByIdOrAlias(db, idOrAlias);
  if (!found || found.link.deletedAt) throw publicNotFound('Public link not found');
  return found;
}

/** The id of the live link an id or alias names, or null (the key of the submission rate limit). */
export async function linkIdFor(db: Executor, idOrAlias: string): Promise<string | null> {
  return (await findLinkByIdOrAlias(db, idOrAlias))?.link.id ?? null;
}

/** May this requester open the type by its slug (public, unlisted, or an audience they belong to)? */
export async function typeReachable(db: Executor, rec: MeetingTypeRecord, requester: Requester | null): Promise<boolean> {
  const t = rec.type;
  if (!t.enabled || !t.published) return false;
  if (t.visibility === 'public' || t.visibility === 'unlisted') return true;
  if (!requester || !t.audienceId || requester.customerId !== t.customerId) return false;
  return Boolean(await audienceMembership(db, t.audienceId, { email: requester.email }));
}

/** Is the type listed on the schedule page for this requester (unlisted types are not)? */
export async function typeListed(db: Executor, rec: MeetingTypeRecord, requester: Requester | null): Promise<boolean> {
  return rec.type.visibility !== 'unlisted' && (await typeReachable(db, rec, requester));
}
