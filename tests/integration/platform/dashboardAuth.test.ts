import { beforeAll, describe, expect, it } from 'vitest';
import { decode } from 'next-auth/jwt';
import { getDb } from '@/server/db';
import { authOptions } from '@/server/auth/nextAuth';
import { authSecret } from '@/server/auth/secret';
import { createOwner } from '@/server/domain/ownerService';
import { authenticateOwner, setOwnerPassword } from '@/server/domain/passwords';
import { api, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { dashboardCookie } from '../../helpers/dashboardSession';

let admin: TestCustomer;
let email: string;
let ownerId: string;
const password = 'correct horse battery';

beforeAll(async () => {
  admin = await newCustomer();
  email = uniqueEmail('dash');
  const db = await getDb();
  ownerId = (await createOwner(db, admin.customerId, { email, time_zone: 'UTC', role: 'admin' })).id;
  await setOwnerPassword(db, admin.customerId, email, password);
});

const signInCookie = (signInEmail = email, signInPassword = password) => dashboardCookie(signInEmail, signInPassword);
const sessionCookie = (_ownerId: string) => signInCookie();

describe('dashboard sign-in and the tRPC owner session', () => {
  it('checks passwords (scrypt) and never stores them in plain text', async () => {
    const db = await getDb();
    expect(await authenticateOwner(db, email.toUpperCase(), password)).toMatchObject({ ownerId, role: 'admin', customerId: admin.customerId });
    expect(await authenticateOwner(db, email, 'wrong password!')).toBeNull();
    expect(await authenticateOwner(db, uniqueEmail(), password)).toBeNull();
    const text = JSON.stringify(await db.execute(`select password_hash from owners where id = '${ownerId}'` as never));
    expect(text).not.toContain(password);
    expect(text).toContain('scrypt$');
  });

  it('refuses owner procedures without a session (401) and answers them with one', async () => {
    const anonymous = await api('GET', '/api/trpc/session.me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.data.code).toBe('UNAUTHORIZED');
    const forged = await api('GET', '/api/trpc/session.me', { headers: { cookie: 'next-auth.session-token=eyJhbGciOiJub25lIn0.e30.' } });
    expect(forged.status).toBe(401);
    const me = await api('GET', '/api/trpc/session.me', { headers: { cookie: await sessionCookie(ownerId) } });
    expect(me.status, me.text).toBe(200);
    expect(me.body.result.data).toEqual({ owner_email: email, role: 'admin' });
  });

  it('answers every tRPC request with an X-Request-Id: the one sent when well-formed, else a new one (docs/api.md)', async () => {
    const cookie = await sessionCookie(ownerId);
    expect((await api('GET', '/api/trpc/session.me', { headers: { cookie, 'x-request-id': 'dash-42' } })).headers.get('x-request-id')).toBe('dash-42');
    expect((await api('GET', '/api/trpc/session.me', { headers: { cookie } })).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api('GET', '/api/trpc/session.me')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignores an API key offered as a dashboard session', async () => {
    expect((await api('GET', '/api/trpc/session.me', { key: admin.key })).status).toBe(401);
  });

  it('refuses cross-site writes to tRPC (CSRF) whatever the session', async () => {
    const cookie = await sessionCookie(ownerId);
    const crossSite = await api('POST', '/api/trpc/session.me', {
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: 'a=1',
    });
    expect(crossSite.status).toBe(403);
    const fetchMeta = await api('POST', '/api/trpc/session.me', { headers: { cookie, 'sec-fetch-site': 'cross-site' }, body: {} });
    expect(fetchMeta.status).toBe(403);
  });
});

describe('a password change ends the sessions issued before it', () => {
  it('refuses a session issued before the change (401) and accepts one issued after', async () => {
    const db = await getDb();
    const who = uniqueEmail('pwchange');
    await createOwner(db, admin.customerId, { email: who, time_zone: 'UTC', role: 'member' });
    await setOwnerPassword(db, admin.customerId, who, 'first password 123');
    const before = await signInCookie(who, 'first password 123');
    expect((await api('GET', '/api/trpc/session.me', { headers: { cookie: before } })).status).toBe(200);

    await setOwnerPassword(db, admin.customerId, who, 'second password 456');
    const stale = await api('GET', '/api/trpc/session.me', { headers: { cookie: before } });
    expect(stale.status, stale.text).toBe(401);

    const after = await signInCookie(who, 'second password 456');
    const me = await api('GET', '/api/trpc/session.me', { headers: { cookie: after } });
    expect(me.status, me.text).toBe(200);
    expect(me.body.result.data).toEqual({ owner_email: who, role: 'member' });
    // Refreshing the stale session through Auth.js's jwt callback (/api/auth/session) fails too; next-auth then clears the cookie.
    const jwt = authOptions().callbacks!.jwt!;
    const staleToken = await decode({ token: before.split('=')[1], secret: authSecret() });
    await expect(jwt({ token: staleToken } as never)).rejects.toThrow(/password change/);
    const freshToken = await decode({ token: after.split('=')[1], secret: authSecret() });
    expect(await jwt({ token: freshToken } as never)).toMatchObject({ sub: freshToken!.sub });
  });
});

describe('sessions: "Sign out" ends this browser only, "Sign out everywhere" ends them all (docs/dashboard.md "Sessions")', () => {
  it('keeps the other browser signed in after one signs out, lists the browsers, and ends all on request', async () => {
    const db = await getDb();
    const who = uniqueEmail('sessions');
    await createOwner(db, admin.customerId, { email: who, time_zone: 'UTC', role: 'member' });
    await setOwnerPassword(db, admin.customerId, who, 'a password 12345');
    const first = await signInCookie(who, 'a password 12345');
    const second = await signInCookie(who, 'a password 12345');
    const me = (cookie: string) => api('GET', '/api/trpc/session.me', { headers: { cookie } });
    expect((await me(first)).status).toBe(200);
    expect((await me(second)).status).toBe(200);

    const listed = await api('GET', '/api/trpc/session.list', { headers: { cookie: second } });
    expect(listed.status, listed.text).toBe(200);
    const sessions = listed.body.result.data.sessions as { session_id: string; current: boolean }[];
    expect(sessions).toHaveLength(2);
    expect(sessions[0].current).toBe(true);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);

    // Sign-out in the first browser (Auth.js's signOut event with that browser's token).
    const firstToken = await decode({ token: first.split('=')[1], secret: authSecret() });
    await authOptions().events!.signOut!({ token: firstToken!, session: null as never });
    expect((await me(first)).status).toBe(401);
    expect((await me(second)).status, 'the other browser stays signed in').toBe(200);
    const jwt = authOptions().callbacks!.jwt!;
    await expect(jwt({ token: firstToken } as never)).rejects.toThrow(/signed out/);
    expect((await api('GET', '/api/trpc/session.list', { headers: { cookie: second } })).body.result.data.sessions).toHaveLength(1);

    // A third browser, then "Sign out everywhere" from the second: both end.
    const third = await signInCookie(who, 'a password 12345');
    const everywhere = await api('POST', '/api/trpc/session.signOutEverywhere', { headers: { cookie: second }, body: {} });
    expect(everywhere.status, everywhere.text).toBe(200);
    expect((await me(second)).status).toBe(401);
    expect((await me(third)).status).toBe(401);
    // Signing in again works.
    expect((await me(await signInCookie(who, 'a password 12345'))).status).toBe(200);
  });
});
