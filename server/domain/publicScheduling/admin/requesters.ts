import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { requesterCredentials, requesterIdentities, verifiedDomains } from '@/db/schema';
import { normalizeEmail } from '../../access';
import { audited, type AdminAction, type AdminChange } from '../../adminAudit';
import { isUuid, newId, newSecret } from '../../ids';
import { afterCursor, allOf, notFound, pageOf, requireOrgScope, type Actor, type Page, type PageQuery } from './common';
import { domainNotVerified, findDomainByName } from './domains';
import { emailDomain } from './validation';

type IdentityRow = typeof requesterIdentities.$inferSelect;
export type IdentityRecord = { identity: IdentityRow; domain: string | null };
export type IdentityView = { identity_id: string; email: string; domain: string | null; created_at: string };
export type CredentialView = { credential_id: string; identity_id: string; requester_credential: string; prefix: string; created_at: string };

export function identityView(r: IdentityRecord): IdentityView {
  return { identity_id: r.identity.id, email: r.identity.email, domain: r.domain, created_at: r.identity.createdAt.toISOString() };
}

function selectIdentities(db: Executor) {
  return db
    .select({ id: requesterIdentities.id, identity: requesterIdentities, domain: verifiedDomains.domain })
    .from(requesterIdentities)
    .leftJoin(verifiedDomains, eq(verifiedDomains.id, requesterIdentities.domainId));
}

async function identityByEmail(db: Executor, customerId: string, email: string): Promise<IdentityRecord | undefined> {
  const [found] = await selectIdentities(db)
    .where(and(eq(requesterIdentities.customerId, customerId), eq(requesterIdentities.email, email)))
    .limit(1);
  return found && { identity: found.identity, domain: found.domain };
}

/**
 * Register a requester by email. The domain is inferred from the address:
 * when the customer has a domain record for exactly that domain, the
 * identity is tied to it, and a domain still pending its DNS challenge is
 * 422 domain_not_verified. An email already registered answers the existing
 * identity (`created: false`, HTTP 200).
 */
function requesterChange(action: AdminAction, customerId: string, details: Record<string, unknown>, now: Date): AdminChange {
  return { action, customerId, details, at: now };
}

export async function createIdentity(
  db: Executor,
  customerId: string,
  actor: Actor,
  input: { email: string },
  now: Date,
): Promise<IdentityRecord & { created: boolean }> {
  return audited(
    db,
    actor,
    (tx) => registerIdentity(tx, customerId, actor, input, now),
    // An email already registered answers the existing identity: nothing changed.
    (r) => (r.created ? requesterChange('requester_identity.create', customerId, identityView(r), now) : null),
  );
}

async function registerIdentity(
  db: Executor,
  customerId: string,
  actor: Actor,
  input: { email: string },
  now: Date,
): Promise<IdentityRecord & { created: boolean }> {
  requireOrgScope(actor);
  const email = normalizeEmail(input.email);
  const existing = await identityByEmail(db, customerId, email);
  if (existing) return { ...existing, created: false };
  const domainName = emailDomain(email);
  const domain = domainName ? await findDomainByName(db, customerId, domainName) : undefined;
  if (domain && domain.status !== 'verified') throw domainNotVerified(domain);
  try {
    // In a savepoint: after a lost race the transaction goes on to read the winner.
    const [identity] = await db.transaction((sp) =>
      sp
        .insert(requesterIdentities)
        .values({ id: newId(), customerId, email, domainId: domain?.id ?? null, createdAt: now })
        .returning(),
    );
    return { identity, domain: domain?.domain ?? null, created: true };
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'requester_identities_customer_email_key')) {
      const raced = await identityByEmail(db, customerId, email);
      if (raced) return { ...raced, created: false };
    }
    throw err;
  }
}

async function getIdentity(db: Executor, customerId: string, actor: Actor, identityId: string): Promise<IdentityRecord> {
  requireOrgScope(actor);
  if (!isUuid(identityId)) throw notFound('Requester identity');
  const [found] = await selectIdentities(db)
    .where(and(eq(requesterIdentities.id, identityId), eq(requesterIdentities.customerId, customerId)))
    .limit(1);
  if (!found) throw notFound('Requester identity');
  return { identity: found.identity, domain: found.domain };
}

export async function listIdentities(db: Executor, customerId: string, actor: Actor, q: PageQuery): Promise<Page<IdentityRecord & { id: string }>> {
  requireOrgScope(actor);
  const rows = await selectIdentities(db)
    .where(allOf(eq(requesterIdentities.customerId, customerId), afterCursor(requesterIdentities.id, q.cursor)))
    .orderBy(asc(requesterIdentities.id))
    .limit(q.limit + 1);
  return pageOf(rows, q.limit);
}

/** A new `rc_` credential for an identity: the plaintext is returned once; only its hash and a display prefix are stored. */
export async function mintCredential(db: Executor, customerId: string, actor: Actor, identityId: string, now: Date): Promise<CredentialView> {
  return audited(
    db,
    actor,
    (tx) => insertCredential(tx, customerId, actor, identityId, now),
    (c) => requesterChange('requester_credential.mint', customerId, { identity_id: c.identity_id, credential_id: c.credential_id, prefix: c.prefix }, now),
  );
}

async function insertCredential(db: Executor, customerId: string, actor: Actor, identityId: string, now: Date): Promise<CredentialView> {
  const { identity } = await getIdentity(db, customerId, actor, identityId);
  const secret = newSecret('requesterCredential');
  const [row] = await db
    .insert(requesterCredentials)
    .values({ id: newId(), customerId, identityId: identity.id, tokenHash: secret.hash, prefix: secret.displayPrefix, createdAt: now })
    .returning();
  return { credential_id: row.id, identity_id: identity.id, requester_credential: secret.secret, prefix: row.prefix, created_at: row.createdAt.toISOString() };
}

/** Revoke a credential (effective immediately; revoking again answers the first revocation). */
export async function revokeCredential(
  db: Executor,
  customerId: string,
  actor: Actor,
  identityId: string,
  credentialId: string,
  now: Date,
): Promise<{ credential_id: string; identity_id: string; revoked_at: string }> {
  return audited(
    db,
    actor,
    (tx) => revokeCredentialIn(tx, customerId, actor, identityId, credentialId, now),
    // Revoking again answers the first revocation: nothing changed.
    (r) => (r.revoked_at === now.toISOString() ? requesterChange('requester_credential.revoke', customerId, { identity_id: r.identity_id, credential_id: r.credential_id }, now) : null),
  );
}

async function revokeCredentialIn(
  db: Executor,
  customerId: string,
  actor: Actor,
  identityId: string,
  credentialId: string,
  now: Date,
): Promise<{ credential_id: string; identity_id: string; revoked_at: string }> {
  const { identity } = await getIdentity(db, customerId, actor, identityId);
  if (!isUuid(credentialId)) throw notFound('Requester credential');
  const where = and(eq(requesterCredentials.id, credentialId), eq(requesterCredentials.identityId, identity.id), eq(requesterCredentials.customerId, customerId));
  const [row] = await db.select().from(requesterCredentials).where(where).limit(1);
  if (!row) throw notFound('Requester credential');
  if (row.revokedAt) return { credential_id: row.id, identity_id: identity.id, revoked_at: row.revokedAt.toISOString() };
  const [updated] = await db
    .update(requesterCredentials)
    .set({ revokedAt: now })
    .where(and(where, isNull(requesterCredentials.revokedAt)))
    .returning();
  return { credential_id: row.id, identity_id: identity.id, revoked_at: (updated?.revokedAt ?? now).toISOString() };
}

export type CredentialListItem = { credential_id: string; identity_id: string; prefix: string; created_at: string; revoked_at: string | null };

/** Every credential of the customer's identities (newest first; never the secret), for the admin console. */
export async function listCredentials(db: Executor, customerId: string, actor: Actor): Promise<CredentialListItem[]> {
  requireOrgScope(actor);
  const rows = await db.select().from(requesterCredentials).where(eq(requesterCredentials.customerId, customerId)).orderBy(desc(requesterCredentials.createdAt));
  return rows.map((r) => ({ credential_id: r.id, identity_id: r.identityId, prefix: r.prefix, created_at: r.createdAt.toISOString(), revoked_at: r.revokedAt?.toISOString() ?? null }));
}
