import { and, asc, eq, isNotNull, lt, or } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { owners, verificationTokens } from '@/db/schema';
import { normalizeEmail } from './access';
import type { SignedInOwner } from './passwords';

/**
 * Dashboard sign-in by emailed link (Auth.js email provider, see
 * docs/dashboard.md). The link signs in an owner with dashboard access: a
 * password set by `cli set-password` or the demo seed, or an invitation an
 * admin sent from the Owners page. An email shared by owners of several
 * customers signs in the oldest of them.
 */

/** Owners with dashboard access: a password, or an invitation. */
const hasDashboardAccess = or(isNotNull(owners.passwordHash), isNotNull(owners.invitedAt));

function toSignedIn(o: typeof owners.$inferSelect): SignedInOwner {
  return { ownerId: o.id, customerId: o.customerId, email: o.email, role: o.role, sessionVersion: o.sessionVersion };
}

/** The owner an emailed link for `email` signs in, or null (no such owner, or no dashboard access). */
export async function ownerForSignInEmail(db: Executor, email: string): Promise<SignedInOwner | null> {
  const [o] = await db
    .select()
    .from(owners)
    .where(and(eq(owners.email, normalizeEmail(email)), hasDashboardAccess))
    .orderBy(asc(owners.createdAt))
    .limit(1);
  return o ? toSignedIn(o) : null;
}

/** An owner with dashboard access by id, or null. */
export async function ownerForSignInId(db: Executor, ownerId: string): Promise<SignedInOwner | null> {
  const [o] = await db
    .select()
    .from(owners)
    .where(and(eq(owners.id, ownerId), hasDashboardAccess))
    .limit(1);
  return o ? toSignedIn(o) : null;
}

/** Store a link's (hashed) token; the identifier's expired tokens go at the same time. */
export async function storeSignInToken(db: Executor, t: { identifier: string; token: string; expires: Date }, now: Date): Promise<void> {
  await db.delete(verificationTokens).where(and(eq(verificationTokens.identifier, t.identifier), lt(verificationTokens.expires, now)));
  await db.insert(verificationTokens).values(t);
}

/**
 * Take a token: it is deleted and returned in one statement, so of two
 * concurrent uses of the same link only one gets it (a link works once).
 * The caller refuses it when `expires` has passed.
 */
export async function consumeSignInToken(db: Executor, identifier: string, token: string) {
  const [row] = await db
    .delete(verificationTokens)
    .where(and(eq(verificationTokens.identifier, identifier), eq(verificationTokens.token, token)))
    .returning();
  return row ?? null;
}
