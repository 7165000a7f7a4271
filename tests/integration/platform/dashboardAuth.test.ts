import { beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'next-auth/jwt';
import { getDb } from '@/server/db';
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

async function sessionCookie(sub: string): Promise<string> {
  return `next-auth.session-token=${await encode({ token: { sub }, secret: authSecret() })}`;
}

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
