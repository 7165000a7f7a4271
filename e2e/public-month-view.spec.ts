import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from './test';
import { expectAccessible, publicLink, tabTo } from './publicFixtures';
import { baseUrls } from './servers';

/**
 * The month view (docs/public-scheduling.md "Month view"): a requester books with the keyboard
 * alone through the month grid and the picked day's times; focus never falls to <body> and the
 * live region names the day picked. Screenshots at a phone and a desktop size, light and dark
 * (into docs/images/ with E2E_DOCS_SCREENSHOTS=1).
 */
const ZONE = 'America/New_York';
const LOCALE = 'en-US'; // weeks start on Sunday
test.use({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, locale: LOCALE });
const DOCS_SHOTS = process.env.E2E_DOCS_SCREENSHOTS === '1' ? path.join(__dirname, '..', 'docs', 'images') : null;

/**
 * Records every moment focus is on <body> once something had it (checked after each focus change
 * and on every frame), with the key pressed last and the element that lost it.
 */
async function watchFocus(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const w = window as unknown as { lostFocus: string[] };
    w.lostFocus = [];
    let armed = false;
    let lastKey = '';
    let lastTarget = '';
    const check = () => {
      if (armed && (document.activeElement === document.body || document.activeElement === null)) {
        w.lostFocus.push(`after ${lastKey}: ${lastTarget}`);
        armed = false;
      }
    };
    document.addEventListener('keydown', (e) => (lastKey = e.key), true);
    document.addEventListener('focusin', () => (armed = true));
    document.addEventListener('focusout', (e) => {
      lastTarget = (e.target as HTMLElement).outerHTML.slice(0, 120);
      setTimeout(check, 0);
    });
    const frame = () => {
      check();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  return () => page.evaluate(() => (window as unknown as { lostFocus: string[] }).lostFocus);
}

const focusedDate = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.date ?? null);

function addDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

test('a requester books through the month view with the keyboard alone', async ({ page }, testInfo) => {
  const link = await publicLink(page.request, 'month');
  await page.goto(`/${link.alias}/${link.slug}`);
  const grid = page.getByRole('grid');
  await expect(grid.locator('button[data-free]').first()).toBeVisible();
  const lost = await watchFocus(page);

  // The first day with times is picked, its times shown under a heading that names it.
  const selected = grid.locator('[role="gridcell"][aria-selected="true"] button');
  const firstDay = (await selected.getAttribute('data-date'))!;
  expect(firstDay).toBe(await grid.locator('button[data-free]').first().getAttribute('data-date'));
  await expect(selected).toHaveAccessibleName(/, (one time|\d+ times) free$/);
  const caption = new Intl.DateTimeFormat(LOCALE, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${firstDay}T12:00:00Z`));
  await expect(grid.locator('caption')).toHaveText(caption);
  // en-US weeks start on Sunday.
  await expect(grid.getByRole('columnheader').first()).toHaveText('Sun');
  await expect(page.locator('button[data-start]').first()).toBeVisible();
  await expectAccessible(page, 'month view');
  for (const [w, h] of [
    [390, 844],
    [1440, 900],
  ]) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: testInfo.outputPath(`month-${w}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectAccessible(page, 'month view (dark)');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });

  // One Tab stop: the picked day.
  await tabTo(page, selected);
  const keys: [string, (d: string) => string][] = [
    ['ArrowRight', (d) => addDays(d, 1)],
    ['ArrowLeft', (d) => addDays(d, -1)],
    ['ArrowDown', (d) => addDays(d, 7)],
    ['ArrowUp', (d) => addDays(d, -7)],
  ];
  for (const [key, expected] of keys) {
    const from = (await focusedDate(page))!;
    await page.keyboard.press(key);
    await expect.poll(() => focusedDate(page)).toBe(expected(from));
  }
  // Home and End: the week's first (Sunday) and last (Saturday) day.
  await page.keyboard.press('End');
  await expect.poll(async () => new Date(`${await focusedDate(page)}T12:00:00Z`).getUTCDay()).toBe(6);
  await page.keyboard.press('Home');
  await expect.poll(async () => new Date(`${await focusedDate(page)}T12:00:00Z`).getUTCDay()).toBe(0);
  // PageDown shows the next month (focus on its day), PageUp comes back.
  const before = (await focusedDate(page))!;
  await page.keyboard.press('PageDown');
  await expect.poll(() => focusedDate(page)).not.toBe(before);
  await expect(grid.locator('caption')).not.toHaveText(caption);
  await page.keyboard.press('PageUp');
  await expect(grid.locator('caption')).toHaveText(caption);
  await expect.poll(async () => (await focusedDate(page))?.slice(0, 7)).toBe(firstDay.slice(0, 7));
  // Another day with times: the arrow keys go there, Enter picks it.
  let day = (await focusedDate(page))!;
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('ArrowRight');
    day = addDays(day, 1);
    await expect.poll(() => focusedDate(page)).toBe(day);
    if (day !== firstDay && (await page.locator(`button[data-date="${day}"][data-free]`).count())) break;
  }
  const picked = page.locator(`button[data-date="${day}"]`);
  await expect(picked).toHaveAttribute('data-free', 'true');
  const name = (await picked.getAttribute('aria-label'))!.replace(/, [^,]+ free$/, '');
  await page.keyboard.press('Enter');
  const heading = page.getByRole('heading', { name: `Times on ${name}` });
  await expect(heading).toBeFocused();
  await expect(page.getByRole('status').filter({ hasText: ` on ${name}.` })).toHaveText(/^(One free time|\d+ free times) on /);
  await expect(page.locator('[role="gridcell"][aria-selected="true"] button')).toHaveAttribute('data-date', day);

  // Tab from the heading reaches the day's first time; Enter picks it.
  const firstTime = page.locator('button[data-start]').first();
  await tabTo(page, firstTime);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Your details' })).toBeFocused();
  await tabTo(page, page.getByLabel('Your name'));
  await page.keyboard.type('Mona Month');
  await page.keyboard.press('Tab');
  await page.keyboard.type(`mona-${randomBytes(4).toString('hex')}@e2e.example`);
  await tabTo(page, page.getByRole('button', { name: 'Send request' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeFocused();
  expect(await lost()).toEqual([]);
});

test('right to left in Arabic: the arrows follow the reading direction', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: baseUrls[0], locale: 'ar', timezoneId: ZONE, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const link = await publicLink(page.request, 'month-ar');
  await page.goto(`/${link.alias}/${link.slug}`);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  const selected = page.locator('[role="gridcell"][aria-selected="true"] button');
  await expect(selected).toBeVisible();
  const from = (await selected.getAttribute('data-date'))!;
  await tabTo(page, selected);
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => focusedDate(page)).toBe(addDays(from, 1));
  await expectAccessible(page, 'month view (ar)');
  await context.close();
});

test('the next month, at a phone and a desktop size, light and dark', async ({ page }, testInfo) => {
  const link = await publicLink(page.request, 'month-next');
  await page.goto(`/${link.alias}/${link.slug}`);
  const grid = page.getByRole('grid');
  await expect(grid.locator('button[data-free]').first()).toBeVisible();
  const caption = (await grid.locator('caption').textContent())!;
  await page.getByRole('button', { name: 'Next month' }).click();
  await expect(grid.locator('caption')).not.toHaveText(caption);
  // The new month's first day with times is picked, its times shown; the previous month button is enabled.
  await expect(grid.locator('[role="gridcell"][aria-selected="true"] button[data-free]')).toBeVisible();
  await expect(page.getByRole('heading', { name: /^Times on / })).toBeVisible();
  await expect(page.locator('button[data-start]').first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Previous month' })).toHaveAttribute('aria-disabled', 'false');
  await expectAccessible(page, 'month view, next month');
  for (const [w, h] of [
    [390, 844],
    [1440, 900],
  ]) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: testInfo.outputPath(`next-month-${w}-${scheme}.png`), fullPage: true });
      if (DOCS_SHOTS && w === 1440 && scheme === 'light') await page.screenshot({ path: path.join(DOCS_SHOTS, 'public-month-view.png'), fullPage: true });
    }
  }
});
