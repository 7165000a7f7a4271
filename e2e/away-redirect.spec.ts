import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { expect, test } from './test';
import { dashboardOwner, expectAccessible as dashboardAccessible, signInWithPassword, snap as snapPage } from './dashboard';
import { expectAccessible, expectNoLeaks, publicLink, screenshot } from './publicFixtures';
import { baseUrls, databaseUrl, usesPostgres } from './servers';

/**
 * Issue 39, item 2 (docs/public-scheduling.md "Away: sending requesters to a colleague"): while
 * Ada is out of office, her link sends requesters to Bo's link, whose page says who is away and
 * until when; on a phone, accessible (axe), with nothing private in the page.
 */
test.use({ viewport: { width: 390, height: 844 }, locale: 'en-GB', hasTouch: true });

const HOURS = [{ start: '09:00', end: '17:00' }];
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

test('a link whose owner is away redirects to the colleague, whose page names who is away and until when', async ({ page, request }, info) => {
  const ada = await publicLink(request, 'away');
  const headers = { Authorization: `Bearer ${ada.key}` };
  const base = baseUrls[0];
  // Bo, a colleague in the same customer, with a link of his own
  const boEmail = `bo-${ada.alias}@e2e.example`;
  expect((await request.post(`${base}/v1/owners`, { headers, data: { email: boEmail, name: 'Bo Colleague', time_zone: 'Europe/Berlin' } })).status()).toBe(201);
  const bo = await publicLink(request, 'colleague', { key: ada.key, ownerEmail: boEmail, ownerName: 'Bo Colleague' });
  // Ada is away from yesterday to three days ahead (local dates either side of today in every zone)
  const until = day(3);
  const rules = await request.put(`${base}/v1/schedule-rules`, { headers, data: { owner_email: ada.ownerEmail, working_hours: { mon: HOURS, tue: HOURS, wed: HOURS, thu: HOURS, fri: HOURS }, out_of_office: [{ start: day(-1), end: until }] } });
  expect(rules.status(), await rules.text()).toBe(200);
  const set = await request.patch(`${base}/v1/public-scheduling/links/${ada.linkId}`, { headers, data: { away_redirect_link_id: bo.linkId } });
  expect(set.status(), await set.text()).toBe(200);

  await page.goto(`/${ada.alias}`);
  await expect(page).toHaveURL(new RegExp(`/${bo.alias}\\?away_from=${ada.alias}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Book time with Ada'); // the title Bo's link was given by the fixture
  const note = page.getByTestId('away-note');
  await expect(note).toBeVisible();
  await expect(note).toHaveAttribute('role', 'status');
  const year = until.slice(0, 4);
  await expect(note).toContainText(`Ada Lovelace is away until`);
  await expect(note).toContainText(year);
  await expect(note).toContainText('Bo Colleague');
  // Bo's meeting types are there to book
  await expect(page.getByRole('link', { name: /Intro call/ })).toBeVisible();
  await screenshot(page, info, '01-away-redirect');
  await expectAccessible(page, 'the colleague page with the away note');
  await expectNoLeaks(page, bo, page.url());
  expect((await page.content()).toLowerCase()).not.toContain(ada.ownerEmail);

  // a meeting type's address redirects too
  await page.goto(`/${ada.alias}/${ada.slug}`);
  await expect(page).toHaveURL(new RegExp(`/${bo.alias}\\?away_from=${ada.alias}$`));
  await expect(page.getByTestId('away-note')).toBeVisible();

  // the note cannot be made up: another away_from shows none
  await page.goto(`/${bo.alias}?away_from=someone-else`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByTestId('away-note')).toHaveCount(0);
});

test.describe('the dashboard sets the away redirect', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI makes the owner an admin on the database the server uses');
  test.use({ viewport: { width: 1440, height: 900 } });

  test("on the link's card: a colleague's link saved, a loop refused inline", async ({ page }, info) => {
    const owner = await dashboardOwner(page.request, 'away-dash');
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update owners set role = 'admin' where email = ${owner.email}`;
    await sql.end();
    const suffix = randomBytes(4).toString('hex');
    const colleague = `colleague-${suffix}@e2e.example`;
    await owner.api('POST', '/v1/owners', { email: colleague, name: 'Bo Colleague', time_zone: 'Europe/Berlin' });
    const mine = await owner.api('POST', '/v1/public-scheduling/links', { owner_email: owner.email, alias: `e2e-away-${suffix}` });
    const theirs = await owner.api('POST', '/v1/public-scheduling/links', { owner_email: colleague, alias: `e2e-bo-${suffix}` });

    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/admin/public-scheduling`);
    const card = page.getByTestId(`link-${mine.alias}`);
    const field = card.getByLabel('While the owner is away, send requesters to');
    await field.selectOption({ label: `/${theirs.alias} (${colleague})` });
    await card.getByRole('button', { name: 'Save redirect' }).click();
    // each of the card's forms has its own status: wait on this form's, not on any "Saved" in the card
    await expect(card.getByRole('form', { name: /^Away redirect of / }).getByRole('status')).toHaveText('Saved');
    expect((await owner.api('GET', `/v1/public-scheduling/links/${mine.link_id}`)).away_redirect_link_id).toBe(theirs.link_id);
    await snapPage(page, info, '02-dashboard-away-redirect');
    await dashboardAccessible(page, 'public scheduling with an away redirect');

    // the colleague's link back to this one would loop: refused under the field, nothing saved
    const back = page.getByTestId(`link-${theirs.alias}`);
    await back.getByLabel('While the owner is away, send requesters to').selectOption({ label: `/${mine.alias} (${owner.email})` });
    await back.getByRole('button', { name: 'Save redirect' }).click();
    await expect(back.getByText(/would loop/)).toBeVisible();
    expect((await owner.api('GET', `/v1/public-scheduling/links/${theirs.link_id}`)).away_redirect_link_id).toBeNull();

    // the same card sets the link's default language (docs/public-scheduling.md "Languages"), each language named in itself
    const language = card.getByLabel('Default language of the booking pages');
    await language.selectOption({ label: 'Deutsch' });
    await card.getByRole('button', { name: 'Save language' }).click();
    await expect(card.getByRole('form', { name: /^Default language of / }).getByRole('status')).toHaveText('Saved');
    expect((await owner.api('GET', `/v1/public-scheduling/links/${mine.link_id}`)).default_language).toBe('de');
    await page.reload();
    await expect(page.getByTestId(`link-${mine.alias}`).getByLabel('Default language of the booking pages')).toHaveValue('de');
    await dashboardAccessible(page, 'public scheduling with a default language');
  });
});
