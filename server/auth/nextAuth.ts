import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { getToken } from 'next-auth/jwt';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { owners } from '@/db/schema';
import { authenticateOwner } from '@/server/domain/passwords';
import type { OwnerSession } from './ownerSession';
import { prepareAuthEnvironment } from '@/server/config';
import { requestOrigin } from '@/server/request';
import { authSecret } from './secret';

/**
 * Auth.js (next-auth 4) for the dashboard: owners sign in with email and
 * password (set by `npm run cli -- set-password`, printed for the demo owner
 * by `npm run dev`); sessions are signed JWT cookies, so any instance can read
 * them. Agents never use this: they authenticate with API keys on /v1.
 */
export function authOptions(): NextAuthOptions {
  prepareAuthEnvironment();
  return {
    secret: authSecret(),
    session: { strategy: 'jwt', maxAge: 8 * 3600 },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: {
          email: { label: 'Email', type: 'email' },
          password: { label: 'Password', type: 'password' },
        },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const owner = await authenticateOwner(await getDb(), credentials.email, credentials.password);
          return owner ? { id: owner.ownerId, email: owner.email } : null;
        },
      }),
    ],
    callbacks: {
      // The token carries only the owner id; role and customer are read fresh per request.
      jwt: ({ token, user }) => (user ? { ...token, sub: user.id } : token),
    },
  };
}

function cookiesOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

/** The signed-in owner of a request (fresh from the database), or null. */
export async function readOwnerSession(req: Request): Promise<OwnerSession | null> {
  const secureCookie = requestOrigin(req).startsWith('https:');
  // headers: {} keeps getToken from reading an `Authorization: Bearer` header as a session.
  const token = await getToken({ req: { cookies: cookiesOf(req), headers: {} } as never, secret: authSecret(), secureCookie });
  if (!token?.sub) return null;
  const [owner] = await (await getDb()).select().from(owners).where(eq(owners.id, token.sub)).limit(1);
  if (!owner || !owner.passwordHash) return null;
  return { ownerId: owner.id, customerId: owner.customerId, email: owner.email, role: owner.role };
}
