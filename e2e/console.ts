import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from './test';
import { baseUrls, databaseUrl, PROJECT_ROOT } from './servers';

/** Helpers of the administration console journeys (e2e/adminConsole*.spec.ts). */
const run = promisify(execFile);
export const base = baseUrls[0];

/** A dashboard password through the CLI, on the database the servers use. */
export async function setPassword(email: string, password: string): Promise<void> {
  await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', email, '--password', password], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
    timeout: 90_000,
  });
}

export async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/api/auth/signin`);
  await page.getByLabel('Email', { exact: true }).first().fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: /sign in/i }).click();
  // Auth.js sends its sign-in page to the app's /signin: wait until the sign-in has left both.
  await page.waitForURL((url) => !url.pathname.startsWith('/api/auth/signin') && !url.pathname.startsWith('/signin'));
}

/** No serious or critical axe violations on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad, 'serious/critical axe violations').toEqual([]);
}

/** Desktop and phone screenshots into the Playwright output folder, and axe on the phone layout. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: test.info().outputPath(`${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath(`${name}-phone.png`), fullPage: true });
  await expectAccessible(page);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A REST call with a bearer key and a fresh Idempotency-Key. */
export function rest(page: Page, key: string, method: 'get' | 'post' | 'put' | 'patch', path: string, data?: unknown) {
  return page.request[method](`${base}${path}`, { headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': randomBytes(8).toString('hex') }, data });
}
