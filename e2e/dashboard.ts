import { execFile } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, type APIRequestContext, type Page, type TestInfo } from './test';
import { Temporal } from 'temporal-polyfill';
import { bootstrapKey } from './bootstrapKey';
import { claimJourneyCustomer } from './journeyPool';
import { baseUrls, databaseUrl, PROJECT_ROOT } from './servers';

const run = promisify(execFile);
export const TZ = 'Europe/Berlin';

export type DashboardOwner = { email: string; password: string; key: string; base: string; api: (method: 'POST' | 'PUT' | 'GET', path: string, data?: unknown) => Promise<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- REST bodies as JSON

/**
 * A fresh customer with an owner in Europe/Berlin (Mon-Fri 09:00-17:00,
 * lunch blocked, at most 6 meeting hours a day), classes external (50) and
 * internal (30), and a dashboard password: set through the CLI with
 * PostgreSQL; with the embedded database (which the CLI cannot open while
 * the server runs) the owner and password of a customer made before the
 * server started (e2e/journeyPool.ts).
 */
export async function dashboardOwner(request: APIRequestContext, label: string): Promise<DashboardOwner> {
  const claimed = databaseUrl ? null : claimJourneyCustomer();
  const suffix = randomBytes(4).toString('hex');
  const api_key = claimed?.api_key ?? (await bootstrapKey(`E2E ${label} ${suffix}`)).api_key;
  const base = baseUrls[0];
  const email = claimed?.owner_email ?? `${label}-${suffix}@e2e.example`;
  const api: DashboardOwner['api'] = async (method, path, data) => {
    const res = await request.fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${api_key}`, 'Idempotency-Key': randomBytes(8).toString('hex') }, data });
    const body = await res.json();
    expect(res.ok(), `${method} ${path}: ${JSON.stringify(body)}`).toBe(true);
    return body;
  };
  if (!claimed) await api('POST', '/v1/owners', { email, name: 'Erin Example', time_zone: TZ });
  const days = ['mon', 'tue', 'wed', 'thu', 'fri'];
  await api('PUT', '/v1/schedule-rules', {
    owner_email: email,
    working_hours: Object.fromEntries(days.map((d) => [d, [{ start: '09:00', end: '17:00' }]])),
    hard_blocks: [{ days, start: '12:00', end: '13:00', label: 'Lunch' }],
    max_daily_meeting_hours: 6,
  });
  await api('POST', '/v1/meeting-classes', { name: 'external', priority: 50, preempt_policy: 'preempt_lower' });
  await api('POST', '/v1/meeting-classes', { name: 'internal', priority: 30, preempt_policy: 'preempt_lower' });
  const password = claimed?.owner_password ?? `pw-${randomBytes(9).toString('base64url')}`;
  if (!claimed) {
    await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', email, '--password', password], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
      timeout: 90_000,
    });
  }
  return { email, password, key: api_key, base, api };
}

/** An instant (ISO, UTC) at a local wall time `weeksAhead` weeks from now on `weekday` (1 = Monday) in Berlin. */
export function berlin(weekday: number, hhmm: string, weeksAhead = 1): string {
  const today = Temporal.Now.plainDateISO(TZ);
  const monday = today.subtract({ days: today.dayOfWeek - 1 }).add({ weeks: weeksAhead });
  const [hour, minute] = hhmm.split(':').map(Number);
  return new Date(monday.add({ days: weekday - 1 }).toPlainDateTime({ hour, minute }).toZonedDateTime(TZ).epochMilliseconds).toISOString();
}

/** The owner-local date (YYYY-MM-DD) of an instant, for ?week=. */
export function berlinDate(iso: string): string {
  return Temporal.Instant.from(iso).toZonedDateTimeISO(TZ).toPlainDate().toString();
}

export async function signInWithPassword(page: Page, owner: DashboardOwner): Promise<void> {
  await page.goto(`${owner.base}/signin`);
  await page.getByLabel('Email', { exact: true }).fill(owner.email);
  await page.getByLabel('Password', { exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
}

/** axe-core on the page as it is: no serious or critical violations. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `${what}: accessibility`).toEqual([]);
}

/** A full-page screenshot in this test's output folder. */
export async function snap(page: Page, info: TestInfo, name: string): Promise<void> {
  await page.screenshot({ path: info.outputPath(`${name}.png`), fullPage: true });
}

/** A screenshot for the docs (docs/images/<name>.png, the viewport), taken by the journeys that show a page the docs describe. */
export async function docShot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(PROJECT_ROOT, 'docs', 'images', `${name}.png`), fullPage: false });
}
