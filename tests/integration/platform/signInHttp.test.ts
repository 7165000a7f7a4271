import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { authRoute } from '@/server/auth/route';
import { signInLinksSettled } from '@/server/auth/signInLink';
import { closeMailer } from '@/server/domain/email';
import { createOwner } from '@/server/domain/ownerService';
import { authenticateOwner, DUMMY_PASSWORD_HASH, setOwnerPassword, verifyPassword } from '@/server/domain/passwords';
import { api, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { linksIn, startSmtp, type TestSmtp } from '../../helpers/smtp';
import { freshIp } from '../../helpers/freshIp';

/**
 * Owner sign-in over HTTP (/api/auth/*, Auth.js), in-process through the real route handler
 * (server/auth/route.ts): the email-link throttle, answers that do not tell owners from
 * strangers (the dummy hash, the link mail sent after the answer, SMTP failures), and sign-out
 * ending the session on the server (docs/reliability.md, "Sign-in").
 */
const BASE = 'http://scheduler.test';
const PASSWORD = 'a long enough password';
let admin: TestCustomer;
let smtp: TestSmtp;

beforeAll(async () => {
  await getDb(); // migrates (slow on PGlite): in the hook, with its longer timeout
  admin = await newCustomer();
  smtp = await startSmtp();
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  await signInLinksSettled();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

type Answer = { status: number; headers: Headers; text: string; json: Record<string, unknown> | null; cookies: string[] };

async function auth(method: 'GET' | 'POST', path: string, opts: { form?: Record<string, string>; cookies?: string[]; ip: string }): Promise<Answer> {
  const url = new URL(path, BASE);
  // As Next.js hands them over: the Host and protocol the client used (next-auth builds its URLs from them).
  const headers = new Headers({ host: url.host, 'x-forwarded-host': url.host, 'x-forwarded-proto': 'http', 'x-forwarded-for': opts.ip });
  if (opts.cookies?.length) headers.set('cookie', opts.cookies.join('; '));
  let body: string | undefined;
  if (opts.form) {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    body = new URLSearchParams(opts.form).toString();
  }
  const nextauth = url.pathname.replace(/^\/api\/auth\//, '').split('/');
  const res = await authRoute(new Request(url, { method, headers, body }), { params: Promise.resolve({ nextauth }) });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json, cookies: res.headers.getSetCookie().map((c) => c.split(';')[0]) };
}

/** csrf first (its cookie and token), then the POST, as next-auth's client does. */
async function post(path: string, form: Record<string, string>, ip: string, cookies: string[] = []): Promise<Answer> {
  const csrf = await auth('GET', '/api/auth/csrf', { ip, cookies });
  expect(csrf.status).toBe(200);
  const jar = [...cookies, ...csrf.cookies];
  return auth('POST', path, { ip, cookies: jar, form: { ...form, csrfToken: String(csrf.json!.csrfToken), json: 'true' } });
}

const askLink = (email: string, ip: string) => post('/api/auth/signin/email', { email, callbackUrl: `${BASE}/dashboard` }, ip);

async function owner(): Promise<string> {
  const email = uniqueEmail('signin-http');
  const db = await getDb();
  await createOwner(db, admin.customerId, { email, time_zone: 'UTC', role: 'member' });
  await setOwnerPassword(db, admin.customerId, email, PASSWORD);
  return email;
}

/** The answer with what legitimately differs per request (the address, tokens, cookies' values) left out. */
const shape = (a: Answer) => ({ status: a.status, json: a.json, retryAfter: a.headers.get('retry-after') !== null, limit: a.headers.get('ratelimit-limit') });

describe('email-link requests are throttled per address and per client, the same for owners and strangers', () => {
  it('5 links per address in 15 minutes (from any client), then 429 with Retry-After; 5 mails, not 12', async () => {
    const ownerEmail = await owner();
    const stranger = uniqueEmail('nobody');
    for (const email of [ownerEmail, stranger]) {
      for (let i = 0; i < 5; i++) {
        const a = await askLink(email, freshIp());
        expect(a.status, a.text).toBe(200);
        expect(String(a.json!.url)).toMatch(/\/api\/auth\/verify-request\?provider=email&type=email$/);
      }
    }
    const refusedOwner = await askLink(ownerEmail, freshIp());
    const refusedStranger = await askLink(stranger, freshIp());
    for (const r of [refusedOwner, refusedStranger]) {
      expect(r.status, r.text).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(900);
      expect(r.headers.get('ratelimit-limit')).toBe('5');
      expect(r.json).toMatchObject({ error: 'TooManySignInAttempts' });
    }
    // Owner and stranger are told the same; only the seconds left differ (their windows opened at different moments).
    const told = (r: Answer) => ({ ...shape(r), json: { ...r.json, retry_after: 0, message: String(r.json!.message).replace(/\d+ seconds/, 'N seconds') } });
    expect(told(refusedOwner)).toEqual(told(refusedStranger));
    for (let i = 0; i < 7; i++) await askLink(ownerEmail, freshIp()); // 12 requests in all
    await signInLinksSettled();
    expect(smtp.messages.filter((m) => m.to.includes(ownerEmail))).toHaveLength(5);
    expect(smtp.messages.filter((m) => m.to.includes(stranger))).toHaveLength(0);
  });

  it('20 link requests per client in 15 minutes, then 429 for any address; password attempts keep their own budget', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) expect((await askLink(uniqueEmail('spray'), ip)).status).toBe(200);
    const refused = await askLink(await owner(), ip);
    expect(refused.status, refused.text).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('20');
    expect((await askLink(uniqueEmail('elsewhere'), freshIp())).status).toBe(200); // another client is unaffected
    const password = await post('/api/auth/callback/credentials', { email: uniqueEmail('spray'), password: 'not it' }, ip);
    expect(password.status, password.text).toBe(401);
  });
});

describe('sign-in answers do not tell who is an owner', () => {
  it('a wrong password costs one scrypt check for an owner and for an unknown address (a fixed dummy hash)', async () => {
    const db = await getDb();
    const email = await owner();
    const checks: string[] = [];
    const counting = (password: string, stored: string) => {
      checks.push(stored);
      return verifyPassword(password, stored);
    };
    expect(await authenticateOwner(db, uniqueEmail('unknown'), 'some password', counting)).toBeNull();
    expect(checks).toEqual([DUMMY_PASSWORD_HASH]);
    expect(await authenticateOwner(db, email, 'some password', counting)).toBeNull();
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(checks[1]).not.toBe(DUMMY_PASSWORD_HASH);
    // The dummy has the stored hashes' parameters (the same work), and no password opens it.
    expect(DUMMY_PASSWORD_HASH.split('$').slice(0, 4)).toEqual(checks[1].split('$').slice(0, 4));
    expect(await verifyPassword('', DUMMY_PASSWORD_HASH)).toBe(false);

    // Over HTTP the two wrong-password answers are the same.
    const a = await post('/api/auth/callback/credentials', { email, password: 'wrong one' }, freshIp());
    const b = await post('/api/auth/callback/credentials', { email: uniqueEmail('unknown'), password: 'wrong one' }, freshIp());
    expect(a.status).toBe(401);
    expect(shape(a)).toEqual(shape(b));
  });

  it('the link request is answered before its mail is sent; the mail follows', async () => {
    // A gate in front of the SMTP server: connections wait until released.
    const held: net.Socket[] = [];
    let open = false;
    const forward = (client: net.Socket) => {
      const upstream = net.connect(smtp.port, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    };
    const gate = net.createServer((client) => (open ? forward(client) : held.push(client)));
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
    process.env.SMTP_URL = `smtp://127.0.0.1:${(gate.address() as net.AddressInfo).port}`;
    try {
      const email = await owner();
      const answered = await Promise.race([askLink(email, freshIp()), new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
      expect(answered, 'the request waited for the mail').not.toBeNull();
      expect(answered!.status).toBe(200);
      expect(String(answered!.json!.url)).toContain('/api/auth/verify-request');
      expect(smtp.messages.filter((m) => m.to.includes(email))).toEqual([]);

      open = true;
      held.splice(0).forEach(forward);
      const mail = await smtp.waitFor(email, { subject: /sign-in link/, timeoutMs: 10_000 });
      expect(linksIn(mail).some((l) => l.startsWith(`${BASE}/api/auth/callback/email?`)), linksIn(mail).join(" ")).toBe(true);
    } finally {
      process.env.SMTP_URL = smtp.url;
      await signInLinksSettled();
      await new Promise((r) => gate.close(r));
    }
  });

  it("when SMTP fails, an owner's link request answers like an unknown address's (verify-request, not error=EmailSignin)", async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r)); // nothing listens there now: the connection is refused
    process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
    try {
      const ownerAnswer = await askLink(await owner(), freshIp());
      const strangerAnswer = await askLink(uniqueEmail('nobody'), freshIp());
      expect(ownerAnswer.status).toBe(200);
      expect(String(ownerAnswer.json!.url)).not.toContain('error=');
      expect(shape(ownerAnswer)).toEqual(shape(strangerAnswer));
      await signInLinksSettled(); // the failure is logged after the answer
    } finally {
      process.env.SMTP_URL = smtp.url;
    }
  });
});

describe('sign-out ends the session on the server', () => {
  it('the old session cookie no longer answers session.me after sign-out', async () => {
    const email = await owner();
    const ip = freshIp();
    const signedIn = await post('/api/auth/callback/credentials', { email, password: PASSWORD, callbackUrl: `${BASE}/dashboard` }, ip);
    expect(signedIn.status, signedIn.text).toBe(200);
    const session = signedIn.cookies.find((c) => c.startsWith('next-auth.session-token='));
    expect(session, JSON.stringify(signedIn)).toBeDefined();
    const me = await api('GET', '/api/trpc/session.me', { headers: { cookie: session! } });
    expect(me.status, me.text).toBe(200);
    expect(me.body.result.data).toEqual({ owner_email: email, role: 'member' });

    const out = await post('/api/auth/signout', { callbackUrl: `${BASE}/signin` }, ip, [session!]);
    expect(out.status, out.text).toBe(200);
    expect(String(out.json!.url)).toBe(`${BASE}/signin`);

    // A client that kept the cookie (or a thief who copied it) is refused.
    const after = await api('GET', '/api/trpc/session.me', { headers: { cookie: session! } });
    expect(after.status, after.text).toBe(401);
    // Signing in again works.
    const again = await post('/api/auth/callback/credentials', { email, password: PASSWORD }, freshIp());
    const fresh = again.cookies.find((c) => c.startsWith('next-auth.session-token='))!;
    expect((await api('GET', '/api/trpc/session.me', { headers: { cookie: fresh } })).status).toBe(200);
  });
});
