import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from './test';
import { dashboardOwner, expectAccessible, ownerSignedIn, publicLink, screenshot, type PublicLink } from './publicFixtures';
import { baseUrls } from './servers';

/**
 * The not-found and error pages in the product's look (app/not-found.tsx,
 * app/error.tsx and their booking-page and dashboard variants): a heading,
 * what happened, what to do; a link home, except on the booking pages, which
 * link to nothing of the service. Screenshots light and dark into the test's
 * output folder; axe finds no serious or critical violation in either.
 */
const base = baseUrls[0];
let link: PublicLink;

test.beforeAll(async ({ request }) => {
  link = await publicLink(request, 'notfound');
});

/** Light and dark: a screenshot each, and axe on each. */
async function lookAndAccess(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await screenshot(page, test.info(), `${name}-${scheme}`);
    await expectAccessible(page, `${name} (${scheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('an address nothing answers: the product frame, a 404 heading and a link home', async ({ page }) => {
  test.setTimeout(120_000);
  const res = await page.goto(`${base}/no/such/page/here`);
  expect(res?.status()).toBe(404);
  await expect(page).toHaveTitle(/Page not found/);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Agent Scheduler');
  const home = page.getByRole('link', { name: 'Go to the home page' });
  await expect(home).toHaveAttribute('href', '/');
  // Dark at once: the button takes the dark accent the moment the scheme changes (no colour transition).
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await home.evaluate((a) => [getComputedStyle(a).backgroundColor, getComputedStyle(a).color])).toEqual(['rgb(143, 176, 255)', 'rgb(15, 20, 36)']);
  await lookAndAccess(page, 'not-found');
  await home.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Agent Scheduler' })).toBeVisible();
});

test('booking pages that do not exist: the requesters frame, no link into the service', async ({ page }) => {
  test.setTimeout(120_000);
  for (const [p, name] of [
    [`/${link.alias}-missing`, 'public-not-found-link'],
    [`/${link.alias}/no-such-type`, 'public-not-found-type'],
    ['/public/booking-proposals/pt_not_a_real_token', 'public-not-found-status'],
  ] as const) {
    const res = await page.goto(`${base}${p}`);
    expect(res?.status(), p).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'This page does not exist' })).toBeVisible();
    await expect(page.getByRole('main')).toContainText('ask the person who shared it');
    // nothing to follow: no dashboard, no home page, no link at all
    expect(await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href'))), p).toEqual([]);
    if (name === 'public-not-found-link') await lookAndAccess(page, name);
  }
});

test('the dashboard: an unknown proposal keeps the dashboard frame and leads back to the inbox', async ({ browser, request }) => {
  test.setTimeout(150_000);
  const owner = await dashboardOwner(request, 'notfound');
  const context = await ownerSignedIn(browser, owner.ownerEmail);
  try {
    const page = await context.newPage();
    const res = await page.goto(`${base}/dashboard/proposals/${randomUUID()}`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible(); // still in the dashboard's frame
    await lookAndAccess(page, 'dashboard-not-found');
    await page.getByRole('link', { name: 'Back to the inbox' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
  } finally {
    await context.close();
  }
});
