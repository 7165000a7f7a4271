import { expect, test } from './test';
import { seededDemo } from './bootstrapKey';
import { expectAccessible, ownerSignedIn, screenshot } from './publicFixtures';

/**
 * Issue 23 item 6: the demo data has a public link with two meeting types
 * (`cli seed-demo`, which `npm run dev` runs and whose booking page it
 * prints), and the dashboard shows every link and type as a full address
 * with Copy and Open. Needs the embedded run's seeded demo.
 */
test('the seeded demo link: its full addresses are copied and opened from the dashboard, and its booking page lists two types', async ({ browser }, testInfo) => {
  const demo = seededDemo();
  test.skip(!demo, 'only the embedded-database run seeds the demo');
  expect(demo!.booking_page_url).toMatch(/^https?:\/\/[^/]+\/dana(-demo(-\d)?)?$/);
  const alias = demo!.public_link_alias;
  const context = await ownerSignedIn(browser, demo!.owner_email);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/dashboard/admin/public-scheduling');
  const card = page.getByTestId(`link-${alias}`);
  await expect(card).toBeVisible();
  const origin = new URL(page.url()).origin;
  await expect(card.getByTestId('share-url').first()).toHaveText(`${origin}/${alias}`);
  for (const [slug, title] of [
    ['intro', 'Intro call'],
    ['project-review', 'Project review'],
  ]) {
    await expect(card.getByText(`${origin}/${alias}/${slug}`, { exact: true })).toBeVisible();
    await expect(card.getByRole('link', { name: `Open the page of ${title} in a new tab` })).toHaveAttribute('href', `${origin}/${alias}/${slug}`);
  }
  await card.getByRole('button', { name: `Copy the address of the booking page /${alias}`, exact: true }).click();
  // the name starts with the visible word in both states (axe label-content-name-mismatch)
  await expect(card.getByRole('button', { name: `Copied the address of the booking page /${alias}`, exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${origin}/${alias}`);
  await screenshot(page, testInfo, '06-dashboard-public-links');
  await expectAccessible(page, 'public scheduling page');

  const [opened] = await Promise.all([context.waitForEvent('page'), card.getByRole('link', { name: `Open the booking page /${alias} in a new tab` }).click()]);
  await opened.waitForLoadState();
  expect(opened.url()).toBe(`${origin}/${alias}`);
  await expect(opened.getByRole('heading', { level: 1 })).toHaveText('Book time with Dana');
  await expect(opened.getByRole('link', { name: /Intro call/ })).toBeVisible();
  await expect(opened.getByRole('link', { name: /Project review/ })).toBeVisible();
  await context.close();
});

/** Issue 23 item 11: one product name, and its icon from public/ as favicon and app icon. */
test('one product name, and its icon as favicon, Apple touch icon and web app icon', async ({ page, request }, testInfo) => {
  await page.goto('/signin');
  await expect(page).toHaveTitle(/Agent Scheduler$/);
  await expect(page.locator('header')).toContainText('Agent Scheduler');
  await expect(page.locator('head link[rel="icon"][href="/icon.svg"]')).toHaveCount(1);
  await expect(page.locator('head link[rel="apple-touch-icon"][href="/apple-touch-icon.png"]')).toHaveCount(1);
  const manifestHref = await page.locator('head link[rel="manifest"]').getAttribute('href');
  const manifest = await (await request.get(manifestHref!)).json();
  expect(manifest).toMatchObject({ name: 'Agent Scheduler' });
  for (const icon of [...manifest.icons.map((i: { src: string }) => i.src), '/favicon-32.png', '/favicon.ico', '/apple-touch-icon.png']) {
    const res = await request.get(icon);
    expect(res.status(), icon).toBe(200);
    expect(res.headers()['content-type'], icon).toMatch(/^image\/(png|svg\+xml|x-icon|vnd\.microsoft\.icon)/);
  }
  await screenshot(page, testInfo, '11-signin-with-name');
});
