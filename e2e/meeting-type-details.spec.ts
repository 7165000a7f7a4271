import { randomBytes } from 'node:crypto';
import { expect, test, type Locator, type Page } from './test';
import postgres from 'postgres';
import { dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';
import { verificationMail } from './publicFixtures';
import { databaseUrl, usesPostgres } from './servers';

/**
 * Issue 23, items 14 and 8 (docs/dashboard.md "Public scheduling",
 * "Dialogs"; docs/public-scheduling.md "Meeting type details"): the owner
 * gives a meeting type a description, a location, a minimum notice and
 * "book instantly" in the dashboard's dialog (errors inline, in plain
 * words); the requester sees the description before booking and no time
 * sooner than the notice, books, confirms their email, and the meeting is
 * booked at once, its location on the status page. And every dialog stays
 * inside the viewport: its submit button can be scrolled to and pressed at
 * 1440x900 and 390x844.
 */
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const VIDEO = 'https://video.example/intro-e2e';
const DESCRIPTION = 'A first talk about your project. Bring one question you want answered.';

/** The owner of a fresh customer, made admin (the public scheduling and agents pages need it). */
async function adminOwner(page: Page, label: string) {
  const owner = await dashboardOwner(page.request, label);
  const sql = postgres(databaseUrl!, { max: 1 });
  await sql`update owners set role = 'admin' where email = ${owner.email}`;
  await sql.end();
  return owner;
}

/** The open dialog fits the viewport, and its `submit` button can be brought into view and is not covered. */
async function expectReachable(page: Page, dialog: Locator, submit: Locator, viewport: { width: number; height: number }) {
  const box = await dialog.boundingBox();
  expect(box, 'the dialog is drawn').toBeTruthy();
  expect(box!.y, 'the dialog starts inside the viewport').toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, 'the dialog ends inside the viewport').toBeLessThanOrEqual(viewport.height);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
  await submit.scrollIntoViewIfNeeded();
  await expect(submit).toBeInViewport({ ratio: 1 });
}

test.describe('issue 23: meeting type details and dialogs that fit the screen', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(180_000);

  for (const [name, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    test(`the "New agent" dialog scrolls inside the viewport and its button is pressed (${name})`, async ({ page }, info) => {
      await page.setViewportSize(viewport);
      const owner = await adminOwner(page, `dlg-${name}`);
      await signInWithPassword(page, owner);
      await page.goto(`${owner.base}/dashboard/admin/agents`);
      await page.getByRole('button', { name: 'New agent' }).click();
      const dialog = page.getByRole('dialog', { name: 'New agent' });
      await expect(dialog).toBeVisible();
      const submit = dialog.getByRole('button', { name: 'Create agent' });
      await dialog.getByLabel('Name').fill(`Dialog check ${name}`);
      await snap(page, info, `08-new-agent-dialog-${name}`);
      await expectReachable(page, dialog, submit, viewport);
      await submit.click();
      await expect(dialog).toBeHidden();
      await expect(page.getByText(`Dialog check ${name}`).first()).toBeVisible();
    });
  }

  test('owner sets description, location, minimum notice and book instantly; the requester books and the meeting is booked at once', async ({ page, browser }, info) => {
    await page.setViewportSize(DESKTOP);
    const owner = await adminOwner(page, 'mtd');
    const alias = `e2e-mtd-${randomBytes(4).toString('hex')}`;
    const link = await owner.api('POST', '/v1/public-scheduling/links', { owner_email: owner.email, alias, title: 'Book time with Erin' });
    await owner.api('POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug: 'intro', title: 'Intro call', duration_minutes: [30], meeting_class: 'external' });

    // The owner edits the type in the dashboard.
    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/admin/public-scheduling`);
    await page.getByRole('button', { name: 'Edit Intro call' }).click();
    const dialog = page.getByRole('dialog', { name: `Edit Intro call on /${alias}` });
    await expect(dialog).toBeVisible();
    const save = dialog.getByRole('button', { name: 'Save changes' });
    // Refusals inline, in plain words: a link that is not http(s), no number of hours.
    await dialog.getByLabel('Location (optional)').fill('zoom:1234');
    await dialog.getByLabel('Minimum notice (hours)').fill('');
    await save.click();
    await expect(dialog.getByText('A link must start with http:// or https://; a street address is plain text')).toBeVisible();
    await expect(dialog.getByText('Enter a number', { exact: true })).toBeVisible();
    await expect(dialog.getByText(/expected|NaN|Too small/)).toHaveCount(0);
    await snap(page, info, '14-01-type-dialog-errors');
    await dialog.getByLabel('Description (optional)').fill(DESCRIPTION);
    await dialog.getByLabel('Location (optional)').fill(VIDEO);
    await dialog.getByLabel('Minimum notice (hours)').fill('48');
    // Buffers (docs/arbitration.md "Buffers"): time kept free around each meeting of the type.
    await dialog.getByLabel('Free before (minutes)').fill('10');
    await dialog.getByLabel('Free after (minutes)').fill('5');
    await dialog.getByRole('checkbox', { name: /Book instantly/ }).check();
    await snap(page, info, '14-02-type-dialog-filled');
    await expectReachable(page, dialog, save, DESKTOP);
    await save.click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('list', { name: `Meeting types of ${alias}` })).toContainText('48 h notice · 10/5 min kept free before/after · books instantly · has a location');
    const saved = await owner.api('GET', `/v1/public-scheduling/links/${link.link_id}/meeting-types/intro`);
    expect(saved).toMatchObject({ description: DESCRIPTION, location: VIDEO, min_notice_hours: 48, buffer_before_minutes: 10, buffer_after_minutes: 5, book_instantly: true });
    // The same dialog on a phone: its button is reachable too.
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Edit Intro call' }).click();
    await expectReachable(page, dialog, save, PHONE);
    await snap(page, info, '14-03-type-dialog-phone');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The requester, on a phone: the description before booking, no time sooner than 48 hours.
    const requester = await browser.newContext({ viewport: PHONE, timezoneId: 'America/New_York', locale: 'en-US', baseURL: owner.base });
    const rp = await requester.newPage();
    await rp.goto(`/${alias}/intro`);
    await expect(rp.getByTestId('type-description')).toHaveText(DESCRIPTION);
    await expect(rp.getByText('booked at once if it is still free')).toBeVisible();
    await expect(rp.getByText(VIDEO)).toHaveCount(0); // the location only once booked
    const first = rp.locator('button[data-start]').first();
    const start = (await first.getAttribute('data-start'))!;
    expect(Date.parse(start)).toBeGreaterThanOrEqual(Date.now() + 48 * 3_600_000 - 60_000);
    await snap(rp, info, '14-04-public-type-description');
    await expectAccessible(rp, 'meeting type page with a description');
    await rp.emulateMedia({ colorScheme: 'dark' });
    await snap(rp, info, '14-05-public-type-description-dark');
    await expectAccessible(rp, 'meeting type page with a description (dark)');
    await rp.emulateMedia({ colorScheme: 'light' });

    await first.click();
    const email = `instant-${randomBytes(4).toString('hex')}@e2e.example`;
    await rp.getByLabel('Your name').fill('Ivy Instant');
    await rp.getByLabel('Your email').fill(email);
    await rp.getByRole('button', { name: 'Send request' }).click();
    await expect(rp.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    // An instant type speaks of a booking, not of a review (issue 45 item 9).
    await expect(rp.getByText('only then is the time booked, at once if it is still free')).toBeVisible();
    await expect(rp.getByText('for review.')).toHaveCount(0);

    // Confirming the email books it at once (book instantly, a free time): the status page shows the location.
    const mail = await verificationMail(email);
    await rp.goto(mail.verify);
    await rp.getByRole('button', { name: 'Confirm' }).click();
    await expect(rp.getByText('your email is confirmed and your meeting is booked')).toBeVisible();
    await snap(rp, info, '14-06-confirmed-booked');
    await rp.getByRole('link', { name: "See your request's status" }).click();
    await expect(rp.locator('[data-status]')).toHaveAttribute('data-status', 'booked');
    await expect(rp.getByRole('heading', { name: 'Your meeting is booked' })).toBeVisible();
    await expect(rp.getByText('The time was free, so it is booked.')).toBeVisible();
    await expect(rp.getByText('accepted your request')).toHaveCount(0);
    await expect(rp.getByRole('link', { name: VIDEO })).toHaveAttribute('href', VIDEO);
    await snap(rp, info, '14-07-status-booked-location');
    await expectAccessible(rp, 'status page, booked at once');
    // Dark mode: the buttons take the dark colours (issue 23, the secondary button read bright white).
    await rp.emulateMedia({ colorScheme: 'dark' });
    // At once, not after a moment: read without retrying.
    const bg = (l: Locator) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await bg(rp.getByRole('button', { name: 'Cancel this meeting' }))).toBe('rgb(27, 27, 32)');
    expect(await bg(rp.getByRole('link', { name: 'Add to calendar' }))).toBe('rgb(143, 176, 255)');
    await snap(rp, info, '14-08-status-booked-location-dark');
    await expectAccessible(rp, 'status page, booked at once (dark)');
    await requester.close();
  });
});
