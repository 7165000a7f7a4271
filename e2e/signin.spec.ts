import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, test } from './test';
import { bootstrapKey } from './bootstrapKey';
import { baseUrls, databaseUrl, PROJECT_ROOT, usesPostgres } from './servers';

const run = promisify(execFile);

test.describe('owner sign-in', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');

  test('an owner signs in with email and password and the session reaches owner-only tRPC procedures', async ({ page }) => {
    const suffix = randomBytes(4).toString('hex');
    const { api_key } = await bootstrapKey(`E2E sign-in ${suffix}`);
    const email = `signin-${suffix}@e2e.example`;
    const created = await page.request.post(`${baseUrls[0]}/v1/owners`, { headers: { Authorization: `Bearer ${api_key}` }, data: { email, time_zone: 'UTC' } });
    expect(created.status()).toBe(201);
    const password = `pw-${randomBytes(9).toString('base64url')}`;
    await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', email, '--password', password], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
      timeout: 90_000,
    });

    const base = baseUrls[0];
    expect((await page.request.get(`${base}/api/trpc/session.me`)).status()).toBe(401);

    // The library's page now redirects to the app's own sign-in page.
    await page.goto(`${base}/api/auth/signin`);
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByText('The email or password is wrong.')).toBeVisible();
    expect((await page.request.get(`${base}/api/trpc/session.me`)).status()).toBe(401);

    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/dashboard'));
    const me = await page.request.get(`${base}/api/trpc/session.me`);
    expect(me.status(), await me.text()).toBe(200);
    expect((await me.json()).result.data).toEqual({ owner_email: email, role: 'member' });
  });
});
