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
export async function hashPassword(password: string): Promise<string> {
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

export const MIN_PASSWORD_LENGTH = 10;

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
 * The owner these credentials sign in. An email may belong to owners of
 * several customers; the first (oldest) whose password matches signs in.
 */
export async function authenticateOwner(db: Executor, email: string, password: string): Promise<SignedInOwner | null> {
  const candidates = await db
    .select()
    .from(owners)
    .where(and(eq(owners.email, normalizeEmail(email)), isNotNull(owners.passwordHash)))
    .orderBy(asc(owners.createdAt))
    .limit(20);
  for (const o of candidates) {
    if (o.passwordHash && (await verifyPassword(password, o.passwordHash))) {
      return { ownerId: o.id, customerId: o.customerId, email: o.email, role: o.role, sessionVersion: o.sessionVersion };
    }
  }
  return null;
}
