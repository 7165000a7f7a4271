import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, test } from './test';
import { bootstrapKey } from './bootstrapKey';
import { ServerProcess } from './reliability/serverProcess';
import { baseUrls, databaseUrl, PROJECT_ROOT, usesPostgres } from './servers';

/** The sign-in page answers 200, or redirects to the app's own /signin on the same origin. */
function expectSignInPageAnswer(res: Response, text: string, origin = new URL(res.url).origin) {
  if (res.status === 200) return;
  expect(res.status, text).toBe(302);
  const location = new URL(res.headers.get('location') ?? '', origin);
  expect(location.origin).toBe(origin);
  expect(location.pathname).toBe('/signin');
}

const run = promisify(execFile);
const hex = () => randomBytes(4).toString('hex');
const clientIp = () => `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */
type Attempt = { status: number; headers: Headers; text: string; json: any; sessionCookie: boolean };

/** One credentials sign-in through Auth.js (csrf, then the callback), as `ip` (the server trusts X-Forwarded-For). */
async function attempt(base: string, email: string, password: string, ip: string, opts: { json?: boolean; callbackUrl?: string } = {}): Promise<Attempt> {
  const csrf = await fetch(`${base}/api/auth/csrf`, { headers: { 'x-forwarded-for': ip } });
  expect(csrf.status).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
  const form: Record<string, string> = { csrfToken, email, password, callbackUrl: opts.callbackUrl ?? `${base}/` };
  if (opts.json !== false) form.json = 'true';
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; '), 'x-forwarded-for': ip },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  const sessionCookie = res.headers.getSetCookie().some((c) => /^(__Secure-)?next-auth\.session-token=[^;]/.test(c));
  return { status: res.status, headers: res.headers, text, json, sessionCookie };
}

test.describe('owner sign-in is throttled per account and per client address', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');

  // Its own instance with TRUST_PROXY=1, so each test speaks for private client addresses
  // (every other request of the suite comes from 127.0.0.1).
  const server = new ServerProcess(Number(process.env.E2E_PORT || 3100) + 5, {});
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    server.env.PORT = String(server.port);
    Object.assign(server.env, { DATABASE_URL: databaseUrl!, REDIS_URL: process.env.E2E_REDIS_URL ?? '', TRUST_PROXY: '1', PGLITE_DIR: '', DB_DRIVER: '', LOG_LEVEL: 'silent' });
    await server.start();
  });
  test.afterAll(async () => server.kill9());

  test('after 10 attempts on one account within 15 minutes the right password gets 429 with Retry-After and a clear message', async () => {
    test.setTimeout(180_000);
    const { api_key } = await bootstrapKey(`E2E throttle ${hex()}`);
    const email = `throttle-${hex()}@e2e.example`;
    const created = await fetch(`${server.url}/v1/owners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json', 'x-forwarded-for': clientIp() },
      body: JSON.stringify({ email, time_zone: 'UTC' }),
    });
    expect(created.status).toBe(201);
    const password = `pw-${randomBytes(9).toString('base64url')}`;
    await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', email, '--password', password], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
      timeout: 90_000,
    });

    const ip = clientIp();
    for (let i = 0; i < 10; i++) {
      const wrong = await attempt(server.url, email, `wrong ${i}`, ip);
      expect(wrong.status, wrong.text).toBe(401);
      expect(wrong.json.url).toContain('error=CredentialsSignin');
    }
    const refused = await attempt(server.url, email, password, ip);
    expect(refused.status, refused.text).toBe(429);
    expect(refused.sessionCookie).toBe(false);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(refused.headers.get('ratelimit-limit')).toBe('10');
    expect(refused.json).toMatchObject({ error: 'TooManySignInAttempts', retry_after: retryAfter });
    expect(refused.json.message).toMatch(/too many sign-in attempts/i);
    expect(new URL(refused.json.url).searchParams.get('error')).toBe('TooManySignInAttempts');

    // The account's budget holds from another address too, and for a browser form post (an HTML page).
    const elsewhere = await attempt(server.url, email, password, clientIp(), { json: false });
    expect(elsewhere.status).toBe(429);
    expect(elsewhere.sessionCookie).toBe(false);
    expect(elsewhere.headers.get('content-type')).toContain('text/html');
    expect(elsewhere.text).toMatch(/Too many sign-in attempts/);
    expect(Number(elsewhere.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  test('after 30 attempts from one address within 15 minutes, any account gets 429', async () => {
    const ip = clientIp();
    for (let i = 0; i < 30; i++) {
      const r = await attempt(server.url, `nobody-${hex()}@e2e.example`, 'some password', ip);
      expect(r.status, `attempt ${i}: ${r.text}`).toBe(401);
    }
    const refused = await attempt(server.url, `nobody-${hex()}@e2e.example`, 'some password', ip);
    expect(refused.status, refused.text).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('30');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // another address is unaffected
    expect((await attempt(server.url, `nobody-${hex()}@e2e.example`, 'some password', clientIp())).status).toBe(401);
  });
});

test.describe('callbackUrl: only this origin is honoured; anything else falls back to the base URL', () => {
  const base = baseUrls[0];
  const BAD = ['http://x:y', 'https://evil.example/steal', 'javascript:alert(1)'];

  for (const bad of BAD) {
    test(`the sign-in page, credentials callback and sign-out answer without 500 for callbackUrl=${bad}`, async () => {
      const q = `callbackUrl=${encodeURIComponent(bad)}`;
      // Auth.js sends its sign-in page to the app's own (/signin): a redirect on this origin, never 500.
      const page = await fetch(`${base}/api/auth/signin?${q}`, { redirect: 'manual' });
      expectSignInPageAnswer(page, await page.text());
      expect(page.headers.getSetCookie().join('\n')).not.toContain(encodeURIComponent(bad));
      expect(page.headers.get('location') ?? '').not.toContain(encodeURIComponent(bad));

      const signout = await fetch(`${base}/api/auth/signout?${q}`, { redirect: 'manual' });
      expect(signout.status, await signout.text()).toBe(200);

      // POST with the bad value in the query and in the body
      const csrf = await fetch(`${base}/api/auth/csrf`);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const cookie = csrf.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      for (const path of [`/api/auth/callback/credentials?${q}`, `/api/auth/signout?${q}`, '/api/auth/callback/credentials', '/api/auth/signout']) {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          // An empty password is refused before the sign-in throttle counts it: these posts spend none of 127.0.0.1's budget.
          body: new URLSearchParams({ csrfToken, email: `nobody-${hex()}@e2e.example`, password: '', callbackUrl: bad, json: 'true' }).toString(),
        });
        const text = await res.text();
        expect(res.status, `${path}: ${text}`).toBeLessThan(500);
        const url = new URL(JSON.parse(text).url);
        expect(url.origin, `${path}: ${text}`).toBe(new URL(base).origin);
      }
    });
  }

  test('an unparseable callback-url cookie does not answer 500 either', async () => {
    const res = await fetch(`${base}/api/auth/signin`, { redirect: 'manual', headers: { cookie: `next-auth.callback-url=${encodeURIComponent('http://x:y')}` } });
    expectSignInPageAnswer(res, await res.text());
  });

  test('a same-origin callbackUrl is kept', async () => {
    const res = await fetch(`${base}/api/auth/signout?callbackUrl=${encodeURIComponent('/dashboard?x=1')}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().join('\n')).toContain(encodeURIComponent(`${new URL(base).origin}/dashboard?x=1`));
  });
});

test.describe('a malformed percent-escape in the path', () => {
  for (const path of ['/v1/bookings/%ff', '/public/schedules/%ff', '/api/trpc/%ff', '/public/schedules/%zz/booking-proposals', '/v1/holds/%e0%a4']) {
    test(`${path} answers 400 invalid_request in the error envelope`, async () => {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${baseUrls[0]}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(JSON.parse(text)).toEqual({ error: { code: 'invalid_request', message: expect.any(String) }, pending_notifications: [] });
      }
    });
  }
});
