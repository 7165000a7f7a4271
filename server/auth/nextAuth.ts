import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import EmailProvider from 'next-auth/providers/email';
import { getToken } from 'next-auth/jwt';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { owners } from '@/db/schema';
import { authenticateOwner, endOwnerSessions } from '@/server/domain/passwords';
import { endOwnerSession, ownerSessionActive, startOwnerSession } from '@/server/domain/ownerSessions';
import type { OwnerSession } from './ownerSession';
import { prepareAuthEnvironment } from '@/server/config';
import { requestOrigin } from '@/server/request';
import { authSecret } from './secret';
import { clientIpOfHeaders, throttleSignIn, throttleSignInLink } from './signInThrottle';
import { ownerAdapter } from './ownerAdapter';
import { PasswordSignIn } from './schemas';
import { SIGN_IN_LINK_MINUTES, emailSignInEnabled, queueSignInLink } from './signInLink';
import { ownerForSignInId } from '@/server/domain/signInLinks';

/**
 * Auth.js (next-auth 4) for the dashboard: owners sign in with email and
 * password (set by `npm run cli -- set-password`, printed for the demo owner
 * by `npm run dev`) or with a one-time link sent by email; sessions are
 * signed JWT cookies, so any instance can read them. Agents never use this: they authenticate with API keys on /v1.
 */
export function authOptions(request: { userAgent?: string | null } = {}): NextAuthOptions {
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
        async authorize(credentials, req) {
          const parsed = PasswordSignIn.safeParse(credentials ?? {});
          if (!parsed.success) return null;
          // Throttled per IP and per account before any password work (server/auth/signInThrottle.ts).
          await throttleSignIn(parsed.data.email, clientIpOfHeaders(req?.headers));
          const owner = await authenticateOwner(await getDb(), parsed.data.email, parsed.data.password);
          return owner ? { id: owner.ownerId, email: owner.email, sessionVersion: owner.sessionVersion } : null;
        },
      }),
      // "Email me a sign-in link" (server/auth/signInLink.ts): offered when mail can reach the owner;
      // the mail goes out after the answer, which is "check your email" for anyone.
      ...(emailSignInEnabled()
        ? [EmailProvider({ maxAge: SIGN_IN_LINK_MINUTES * 60, sendVerificationRequest: ({ identifier, url }) => queueSignInLink(identifier, url) })]
        : []),
    ],
    // Owners are the users; only verification tokens are stored (server/auth/ownerAdapter.ts).
    adapter: ownerAdapter(),
    // The app's own pages (app/(public-pages)/signin) instead of the library's.
    pages: { signIn: '/signin', verifyRequest: '/signin/check-email', error: '/signin' },
    callbacks: {
      // The token carries the owner id, the session version it was issued under and its session row (`sid`,
      // docs/dashboard.md "Sessions"); role and customer are read fresh per request.
      jwt: async ({ token, user }) => {
        if (user) {
          const sid = await startOwnerSession(await getDb(), user.id, request.userAgent ?? null, new Date());
          return { ...token, sub: user.id, sv: (user as { sessionVersion?: number }).sessionVersion ?? 0, sid };
        }
        // Refreshing a session (/api/auth/session): one signed out, or issued before a password change, ends here (next-auth clears the cookie).
        if (!token.sub || !(await currentOwner(token.sub, token.sv, token.sid))) throw new Error('session ended (signed out, or by a password change)');
        return token;
      },
      redirect: ({ url, baseUrl }) => sameOriginUrl(url, baseUrl) ?? baseUrl,
      // A link is asked for by anyone (no mail goes to an unknown address), throttled per client
      // and per address before anything depends on who owns it; it signs in only an owner.
      signIn: async ({ user, account, email }) => {
        if (account?.provider !== 'email') return true;
        if (email?.verificationRequest) {
          await throttleSignInLink(account.providerAccountId || user.email || '');
          return true;
        }
        return !!(await ownerForSignInId(await getDb(), user.id));
      },
    },
    events: {
      // Sign-out ends this browser's session on the server too, so its cookie is refused from now on;
      // the owner's other browsers stay signed in (docs/dashboard.md "Sessions"). A cookie from before
      // sessions had rows can only be ended with the rest: the owner's session version moves on.
      signOut: async ({ token }) => {
        if (!token?.sub) return;
        if (typeof token.sid === 'string') await endOwnerSession(await getDb(), token.sub, token.sid, new Date());
        else await endOwnerSessions(await getDb(), token.sub, typeof token.sv === 'number' ? token.sv : 0);
      },
    },
  };
}

/**
 * `url` resolved against `baseUrl` when it stays on baseUrl's origin, else
 * null. Never throws: an unparseable callbackUrl (`http://x:y`) is just not
 * honoured, and Auth.js falls back to the base URL.
 */
export function sameOriginUrl(url: string, baseUrl: string): string | null {
  try {
    const base = new URL(baseUrl);
    const target = new URL(url, base);
    return target.origin === base.origin ? target.href : null;
  } catch {
    return null;
  }
}

/** The cookies of a request, by name. */
export function cookiesOf(req: Request): Record<string, string> {
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
  const owner = await currentOwner(token.sub, token.sv, token.sid);
  if (!owner) return null;
  return { ownerId: owner.id, customerId: owner.customerId, email: owner.email, role: owner.role, sessionId: typeof token.sid === 'string' ? token.sid : null };
}

/**
 * The owner a session token names, while the session is still valid: the
 * owner exists, can sign in (a password or an invitation), has not changed their password or
 * signed out everywhere since the token was issued (tokens issued before session versions
 * existed carry none: 0), and the token's own session row (if it has one) was not signed out.
 */
async function currentOwner(ownerId: string, sessionVersion: unknown, sessionId: unknown) {
  const db = await getDb();
  const [owner] = await db.select().from(owners).where(eq(owners.id, ownerId)).limit(1);
  if (!owner || (!owner.passwordHash && !owner.invitedAt)) return null;
  const sv = typeof sessionVersion === 'number' ? sessionVersion : 0;
  if (owner.sessionVersion !== sv) return null;
  if (typeof sessionId === 'string' && !(await ownerSessionActive(db, ownerId, sessionId, new Date()))) return null;
  return owner;
}
