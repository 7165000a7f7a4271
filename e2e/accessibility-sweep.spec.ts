import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from './test';
import { seededDemo } from './bootstrapKey';
import { baseUrls } from './servers';

/**
 * Issue 45 ("Fix both axe findings. Axe runs in CI on every page in light and dark, at both
 * sizes, and fails on serious or critical findings"; docs/testing.md "Accessibility sweep"):
 * every page of the dashboard (as the seeded demo's admin, with its bookings and requests) and
 * every requester page, each in light and dark at 1280x900 and 390x844, through axe's WCAG 2.1
 * A/AA and best-practice rules. Runs on the embedded database, whose demo customer has data on
 * every page (the run CI's README path makes).
 */
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** The serious and critical findings on the page as it is, each named with where it is. */
async function findings(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** One page in both schemes at both sizes: every serious or critical finding, by variant. */
async function sweep(browser: Browser, url: string, storageState?: string): Promise<string[]> {
  const out: string[] = [];
  for (const scheme of SCHEMES) {
    for (const size of SIZES) {
      const context = await browser.newContext({ baseURL: baseUrls[0], storageState, colorScheme: scheme, viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      const res = await page.goto(url);
      expect(res?.status(), `${url}: status`).toBeLessThan(500);
      // The page as a person sees it: loaded and its heading drawn (live pages keep polling, so not 'networkidle').
      await expect(page.locator('h1').first()).toBeVisible();
      for (const f of await findings(page)) out.push(`${url} [${scheme}, ${size.name}] ${f}`);
      await context.close();
    }
  }
  return out;
}

test.describe('accessibility sweep: every page, light and dark, desktop and phone', () => {
  // Each page is loaded and checked four times (two schemes, two sizes), 30-50 s on a loaded 2-core
  // runner; the review-and-webhooks test sweeps two pages. The default 60 s is a page's, not a sweep's.
  test.describe.configure({ timeout: 180_000 });
  const demo = seededDemo();
  test.skip(!demo, 'only the embedded-database run seeds the demo whose data fills every page');
  let signedIn: string;

  test.beforeAll(async ({ browser }) => {
    // One sign-in per worker, kept as a storage state the page visits reuse.
    const context = await browser.newContext({ baseURL: baseUrls[0] });
    const page = await context.newPage();
    await page.goto('/signin');
    await page.getByLabel('Email', { exact: true }).fill(demo!.owner_email);
    await page.getByLabel('Password', { exact: true }).fill(demo!.owner_password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
    signedIn = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'axe-sweep-')), 'state.json');
    await context.storageState({ path: signedIn });
    await context.close();
  });

  const DASHBOARD = [
    '/dashboard',
    '/dashboard/calendar',
    '/dashboard/connections',
    '/dashboard/schedule',
    '/dashboard/admin',
    '/dashboard/admin/agents',
    '/dashboard/admin/audit',
    '/dashboard/admin/meeting-classes',
    '/dashboard/admin/owners',
    '/dashboard/admin/pools',
    '/dashboard/admin/public-scheduling',
    '/dashboard/admin/requesters',
  ];
  for (const url of DASHBOARD) {
    test(`dashboard ${url}`, async ({ browser }) => {
      expect(await sweep(browser, url, signedIn)).toEqual([]);
    });
  }

  test('dashboard: a meeting request under review, and an agent\'s webhooks', async ({ browser, request }) => {
    const context = await browser.newContext({ baseURL: baseUrls[0], storageState: signedIn });
    const page = await context.newPage();
    await page.goto('/dashboard');
    const review = await page.locator('a[href*="/dashboard/proposals/"]').first().getAttribute('href');
    expect(review, 'the demo has pending requests in the inbox').toBeTruthy();
    await context.close();
    const agents = await (await request.get(`${baseUrls[0]}/v1/agents`, { headers: { Authorization: `Bearer ${demo!.api_key}` } })).json();
    const agentId = agents.agents[0].agent_id as string;
    expect([...(await sweep(browser, review!, signedIn)), ...(await sweep(browser, `/dashboard/admin/agents/${agentId}/webhooks`, signedIn))]).toEqual([]);
  });

  let status: string;
  test.beforeAll(async ({ request }) => {
    // A request to the demo's link, for its status page.
    const alias = demo!.public_link_alias;
    const times = await (await request.get(`${baseUrls[0]}/public/schedules/${alias}/meeting-types/intro/suggested-times?duration_minutes=30`)).json();
    const slot = times.suggested_times[0];
    expect(slot, JSON.stringify(times)).toBeTruthy();
    const submitted = await request.post(`${baseUrls[0]}/public/schedules/${alias}/booking-proposals`, {
      data: { requester_contact: { email: `sweep-${Date.now()}@e2e.example`, name: 'Sam Sweep' }, attendees: [], public_meeting_type: 'intro', duration_minutes: 30, requested_window: slot },
    });
    expect(submitted.status(), await submitted.text()).toBe(201);
    status = new URL((await submitted.json()).status_url as string).pathname;
  });

  const REQUESTER: [string, () => string][] = [
    ['sign-in', () => '/signin'],
    ['sign-in: check your email', () => '/signin/check-email'],
    ['the link', () => `/${demo!.public_link_alias}`],
    ['a meeting type', () => `/${demo!.public_link_alias}/intro`],
    ["a request's status", () => status],
    ['a page that does not exist', () => '/no-such-page-for-the-sweep'],
  ];
  for (const [what, url] of REQUESTER) {
    test(`requester page: ${what}`, async ({ browser }) => {
      expect(await sweep(browser, url())).toEqual([]);
    });
  }
});
