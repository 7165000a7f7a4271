import { beforeAll, describe, expect, it } from 'vitest';
import { decode, encode } from 'next-auth/jwt';
import { getDb } from '@/server/db';
import { authOptions } from '@/server/auth/nextAuth';
import { authSecret } from '@/server/auth/secret';
import { createOwner } from '@/server/domain/ownerService';
import { authenticateOwner, setOwnerPassword } from '@/server/domain/passwords';
import { api, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

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

/** The session cookie Auth.js sets when this owner signs in with these credentials (the real jwt callback makes the token). */
async function signInCookie(signInEmail = email, signInPassword = password): Promise<string> {
  const owner = await authenticateOwner(await getDb(), signInEmail, signInPassword);
  if (!owner) throw new Error('sign-in refused');
  const jwt = authOptions().callbacks!.jwt!;
  const token = await jwt({ token: { sub: owner.ownerId, email: owner.email }, user: { ...owner, id: owner.ownerId }, account: null } as never);
  return `next-auth.session-token=${await encode({ token, secret: authSecret() })}`;
}
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
