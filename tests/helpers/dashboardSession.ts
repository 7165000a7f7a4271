import { encode } from 'next-auth/jwt';
import { getDb } from '@/server/db';
import { authOptions } from '@/server/auth/nextAuth';
import { authSecret } from '@/server/auth/secret';
import { authenticateOwner } from '@/server/domain/passwords';

/**
 * The session cookie Auth.js sets when this owner signs in with these credentials: the
 * credentials are checked by the domain, and the real jwt callback makes the token
 * (docs/dashboard.md "Sign-in").
 */
export async function dashboardCookie(email: string, password: string): Promise<string> {
  const owner = await authenticateOwner(await getDb(), email, password);
  if (!owner) throw new Error('sign-in refused');
  const jwt = authOptions().callbacks!.jwt!;
  const token = await jwt({ token: { sub: owner.ownerId, email: owner.email }, user: { ...owner, id: owner.ownerId }, account: null } as never);
  return `next-auth.session-token=${await encode({ token, secret: authSecret() })}`;
}
