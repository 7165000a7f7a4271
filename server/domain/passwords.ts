import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { owners } from '@/db/schema';
import { normalizeEmail } from './access';
import { DomainError } from './errors';
import { getOwner } from './ownerService';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEYLEN = 32;

/** `scrypt$N$r$p$salt$hash` (base64url parts). */
async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEYLEN, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

const MIN_PASSWORD_LENGTH = 10;

/**
 * Set an owner's dashboard password (CLI, seeding; the dashboard will offer it
 * to admins). Every dashboard session issued before ends: the owner's session
 * version moves on (server/auth/nextAuth.ts checks it on every request).
 */
export async function setOwnerPassword(db: Executor, customerId: string, email: string, password: string): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('invalid_request', `A password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const owner = await getOwner(db, customerId, email);
  await db
    .update(owners)
    .set({ passwordHash: await hashPassword(password), sessionVersion: sql`${owners.sessionVersion} + 1`, updatedAt: new Date() })
    .where(eq(owners.id, owner.id));
}

export type SignedInOwner = { ownerId: string; customerId: string; email: string; role: 'admin' | 'member'; sessionVersion: number };

/**
 * A scrypt hash (same parameters as every stored one) of a random password
 * nobody knows: checked when no owner has the email, so a wrong password
 * costs the same scrypt work whether or not the address is an owner's
 * (sign-in answers do not tell who is an owner by their timing).
 */
export const DUMMY_PASSWORD_HASH = 'scrypt$16384$8$1$DzVBKSCykrQzBoFCINxbRw$r0m_dgNrSJNBJDzaogaNKXX_v1RyCVKDk7WiCQLFNf4';

/**
 * The owner these credentials sign in. An email may belong to owners of
 * several customers; the first (oldest) whose password matches signs in.
 * With no candidate the password is still checked, against DUMMY_PASSWORD_HASH.
 * `verify` is replaceable for tests that count the checks.
 */
export async function authenticateOwner(
  db: Executor,
  email: string,
  password: string,
  verify: (password: string, stored: string) => Promise<boolean> = verifyPassword,
): Promise<SignedInOwner | null> {
  const candidates = await db
    .select()
    .from(owners)
    .where(and(eq(owners.email, normalizeEmail(email)), isNotNull(owners.passwordHash)))
    .orderBy(asc(owners.createdAt))
    .limit(20);
  if (candidates.length === 0) {
    await verify(password, DUMMY_PASSWORD_HASH);
    return null;
  }
  for (const o of candidates) {
    if (o.passwordHash && (await verify(password, o.passwordHash))) {
      return { ownerId: o.id, customerId: o.customerId, email: o.email, role: o.role, sessionVersion: o.sessionVersion };
    }
  }
  return null;
}

/**
 * Sign-out: end every dashboard session of the owner issued under
 * `sessionVersion` (the signed-out one included) by moving the version on,
 * as a password change does. A session token already outdated changes nothing.
 */
export async function endOwnerSessions(db: Executor, ownerId: string, sessionVersion: number): Promise<void> {
  await db
    .update(owners)
    .set({ sessionVersion: sql`${owners.sessionVersion} + 1`, updatedAt: new Date() })
    .where(and(eq(owners.id, ownerId), eq(owners.sessionVersion, sessionVersion)));
}
