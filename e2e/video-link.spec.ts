import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import postgres from 'postgres';
import { expect, test } from './test';
import { dashboardOwner as adminConsoleOwner, signInWithPassword } from './dashboard';
import { dashboardOwner, expectAccessible, publicLink, screenshot, verificationMail } from './publicFixtures';
import { baseUrls, databaseUrl, usesPostgres } from './servers';

/**
 * Issue 39, item 3 (docs/calendars.md "Video links"): the owner sets a meeting type's video
 * meeting in the dashboard's dialog (a link that is not https refused inline, by the domain's
 * schema); a requester books a meeting type whose
 * location is a video meeting (a fixed link: a personal Zoom room), confirms their email, and
 * finds the link on the status page ("Join") and in the "Add to calendar" file (LOCATION, URL
 * and CONFERENCE). On a phone.
 */
const ZOOM = 'https://zoom.example/j/5550001234';
test.use({ viewport: { width: 390, height: 844 }, timezoneId: 'Europe/Paris', locale: 'en-GB' });

test('a requester books a type with a video link and sees it on the status page and in the ICS', async ({ page }, testInfo) => {
  const owner = await dashboardOwner(page.request, 'vid');
  const link = await publicLink(page.request, 'vid', owner);
  const headers = { Authorization: `Bearer ${link.key}` };
  const patched = await page.request.patch(`${baseUrls[0]}/v1/public-scheduling/links/${link.linkId}/meeting-types/${link.slug}`, { headers, data: { video: { provider: 'link', url: ZOOM }, book_instantly: true } });
  expect(patched.status(), await patched.text()).toBe(200);
  expect((await patched.json()).video).toEqual({ provider: 'link', url: ZOOM });

  await page.goto(`/${link.alias}/${link.slug}`);
  // The link is shown only once booked.
  await expect(page.getByText(ZOOM)).toHaveCount(0);
  await page.locator('button[data-start]').first().click();
  const email = `vic-${randomBytes(4).toString('hex')}@e2e.example`;
  await page.getByLabel('Your name').fill('Vic Video');
  await page.getByLabel('Your email').fill(email);
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();

  const mail = await verificationMail(email);
  await page.goto(mail.verify);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('your email is confirmed and your meeting is booked')).toBeVisible();
  await page.getByRole('link', { name: "See your request's status" }).click();
  await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'booked');
  const join = page.getByTestId('video-link').getByRole('link', { name: ZOOM });
  await expect(join).toHaveAttribute('href', ZOOM);
  await screenshot(page, testInfo, '39-03-status-video-link');
  await expectAccessible(page, 'status page with a video link');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Add to calendar' }).click()]);
  const ics = fs.readFileSync((await download.path())!, 'utf8').replace(/\r\n /g, '');
  expect(ics).toContain(`LOCATION:${ZOOM}`);
  expect(ics).toContain(`URL:${ZOOM}`);
  expect(ics).toMatch(/CONFERENCE;[^\r\n]*FEATURE=VIDEO[^\r\n]*:https:\/\/zoom\.example\/j\/5550001234/);
});

test('the owner sets the video meeting of a type in the dashboard dialog: none, a fixed https link, Google Meet', async ({ page }, testInfo) => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses, and the owner is made admin');
  const owner = await adminConsoleOwner(page.request, 'vidlg');
  const sql = postgres(databaseUrl!, { max: 1 });
  await sql`update owners set role = 'admin' where email = ${owner.email}`;
  await sql.end();
  const alias = `e2e-vd-${randomBytes(4).toString('hex')}`;
  const link = await owner.api('POST', '/v1/public-scheduling/links', { owner_email: owner.email, alias, title: 'Book time with Erin' });
  await owner.api('POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug: 'intro', title: 'Intro call', duration_minutes: [30], meeting_class: 'external' });
  const saved = async () => (await owner.api('GET', `/v1/public-scheduling/links/${link.link_id}/meeting-types/intro`)).video;

  await signInWithPassword(page, owner);
  await page.goto('/dashboard/admin/public-scheduling');
  const edit = page.getByRole('button', { name: 'Edit Intro call' });
  const dialog = page.getByRole('dialog', { name: `Edit Intro call on /${alias}` });
  const save = dialog.getByRole('button', { name: 'Save changes' });
  await edit.click();
  await expect(dialog.getByLabel('Video meeting')).toHaveValue('');
  await dialog.getByLabel('Video meeting').selectOption('link');
  await dialog.getByLabel('Video link').fill('zoom.example/j/5550001234');
  await save.click();
  await expect(dialog.getByText('A video link must start with https://')).toBeVisible();
  await dialog.getByLabel('Video link').fill(ZOOM);
  await screenshot(page, testInfo, '39-03-type-dialog-video');
  await expectAccessible(page, 'meeting type dialog with a video link');
  await save.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('list', { name: `Meeting types of ${alias}` })).toContainText('video: a fixed link');
  expect(await saved()).toEqual({ provider: 'link', url: ZOOM });

  // Reopened, it shows what was saved; Google Meet has no link to type.
  await edit.click();
  await expect(dialog.getByLabel('Video meeting')).toHaveValue('link');
  await expect(dialog.getByLabel('Video link')).toHaveValue(ZOOM);
  await dialog.getByLabel('Video meeting').selectOption('google_meet');
  await expect(dialog.getByLabel('Video link')).toHaveCount(0);
  await save.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('list', { name: `Meeting types of ${alias}` })).toContainText('video: Google Meet');
  expect(await saved()).toEqual({ provider: 'google_meet', url: null });

  // None clears it.
  await edit.click();
  await dialog.getByLabel('Video meeting').selectOption('');
  await save.click();
  await expect(dialog).toBeHidden();
  expect(await saved()).toBeNull();
});
