import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import EmailProvider from 'next-auth/providers/email';
import { getToken } from 'next-auth/jwt';
import { eq } from 'drizzle-orm';
import { getDb } from '@/db/client';
import { owners } from '@/db/schema';
import { authenticateOwner } from '@/server/domain/passwords';
import type { OwnerSession } from '@/server/trpc/init';
import { getConfig } from '@/server/config';
import { publicBaseUrl, requestOrigin } from '@/server/http/request';
import { authSecret } from './secret';
import { ownerAdapter } from './ownerAdapter';
import { PasswordSignIn } from './schemas';
import { SIGN_IN_LINK_MINUTES, emailSignInEnabled, sendSignInLink } from './signInLink';
import { ownerForSignInId } from '@/server/domain/signInLinks';

/**
 * Auth.js (next-auth 4) for the dashboard: owners sign in with email and
 * password (set by `npm run cli -- set-password`, printed for the demo owner
 * by `npm run dev`) or with a one-time link sent by email; sessions are
 * signed JWT cookies, so any instance can read them. Agents never use this: they authenticate with API keys on /v1.
 */
export function authOptions(): NextAuthOptions {
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
          const parsed = PasswordSignIn.safeParse(credentials ?? {});
          if (!parsed.success) return null;
          const owner = await authenticateOwner(await getDb(), parsed.data.email, parsed.data.password);
          return owner ? { id: owner.ownerId, email: owner.email } : null;
        },
      }),
      // "Email me a sign-in link" (server/auth/signInLink.ts): offered when mail can reach the owner.
      ...(emailSignInEnabled()
        ? [EmailProvider({ maxAge: SIGN_IN_LINK_MINUTES * 60, sendVerificationRequest: ({ identifier, url }) => sendSignInLink(identifier, url) })]
        : []),
    ],
    // Owners are the users; only verification tokens are stored (server/auth/ownerAdapter.ts).
    adapter: ownerAdapter(),
    // The app's own pages (app/(public-pages)/signin) instead of the library's.
    pages: { signIn: '/signin', verifyRequest: '/signin/check-email', error: '/signin' },
    callbacks: {
      // The token carries only the owner id; role and customer are read fresh per request.
      jwt: ({ token, user }) => (user ? { ...token, sub: user.id } : token),
      // A link is asked for by anyone (no mail goes to an unknown address); it signs in only an owner.
      signIn: async ({ user, account, email }) => {
        if (account?.provider !== 'email' || email?.verificationRequest) return true;
        return !!(await ownerForSignInId(await getDb(), user.id));
      },
    },
  };
}

/**
 * Auth.js 4 builds its redirects from NEXTAUTH_URL (default
 * http://localhost:3000). Unless the operator set it, use PUBLIC_BASE_URL or
 * the origin this request reached (scripts/serve.mjs makes that trustworthy).
 */
const operatorAuthUrl = getConfig().authUrl; // read before this module ever sets it

export function ensureAuthUrl(req: Request): void {
  if (operatorAuthUrl) return;
  process.env.NEXTAUTH_URL = `${publicBaseUrl(req, getConfig().publicBaseUrl)}/api/auth`;
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
