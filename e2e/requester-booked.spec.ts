import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { expect, test, type Page } from './test';
import { waitForMail } from './mailbox';
import { dashboardOwner, expectAccessible, expectNoLeaks, ownerSignedIn, publicLink, screenshot, timeLabel, verificationMail } from './publicFixtures';
import { baseUrls } from './servers';

/**
 * Issue 23, the requester's side (docs/public-scheduling.md "Status page",
 * "Mail"): words for every state and no raw codes; the confirmation page
 * links the status page; once booked the page carries the owner, the time
 * in the requester's zone, the location, "Add to calendar" and "Cancel this
 * meeting"; every mail names its reader's zone; a type without a limit of its
 * own shows none. On a phone, in New York, keyboard for the cancellation.
 */
const ZONE = 'America/New_York';
const LOCALE = 'en-US';
const VIDEO = 'https://video.example/ada-intro';
test.use({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, locale: LOCALE, hasTouch: true });

function watchErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}

test('a requester books, confirms, adds the meeting to their calendar and cancels it; mail in each reader\'s zone', async ({ page, browser }, testInfo) => {
  const problems = watchErrors(page);
  const owner = await dashboardOwner(page.request, 'j13');
  const link = await publicLink(page.request, 'j13', owner);
  const headers = { Authorization: `Bearer ${link.key}` };
  const patched = await page.request.patch(`${baseUrls[0]}/v1/public-scheduling/links/${link.linkId}/meeting-types/${link.slug}`, { headers, data: { location: VIDEO, description: 'A first talk about your project.' } });
  expect(patched.status(), await patched.text()).toBe(200);
  // Item 15: a type without a limit of its own shows no "Up to ... people".
  const open = await page.request.post(`${baseUrls[0]}/v1/public-scheduling/links/${link.linkId}/meeting-types`, { headers, data: { slug: 'open', title: 'Open call', duration_minutes: [30], meeting_class: 'external' } });
  expect(open.status(), await open.text()).toBe(201);
  await page.goto(`/${link.alias}/open`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Open call');
  await expect(page.getByText(/Up to \d+ people/)).toHaveCount(0);
  await page.locator('button[data-start]').first().click();
  await expect(page.getByRole('heading', { name: 'Your details' })).toBeVisible();
  await expect(page.getByText(/can attend, including you/)).toHaveCount(0);
  await screenshot(page, testInfo, '15-type-without-limit');
  await page.goto(`/${link.alias}/${link.slug}`);
  await expect(page.getByText('Up to 3 people')).toBeVisible();

  // Request the first suggested time.
  const email = `nora-${randomBytes(4).toString('hex')}@e2e.example`;
  const first = page.locator('button[data-start]').first();
  const start = (await first.getAttribute('data-start'))!;
  await first.click();
  await page.getByLabel('Your name').fill('Nora York');
  await page.getByLabel('Your email').fill(email);
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();

  // Item 12: the verification mail names the requester's zone, never UTC.
  const mail = await verificationMail(email);
  expect(mail.text).toContain(`(${ZONE})`);
  expect(mail.text).not.toMatch(/GMT|UTC|\d{4}-\d{2}-\d{2}T/);

  // Item 13: the confirmation page links the status page.
  await page.goto(mail.verify);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('your email is confirmed')).toBeVisible();
  const toStatus = page.getByRole('link', { name: "See your request's status" });
  await expect(toStatus).toBeVisible();
  await screenshot(page, testInfo, '13-01-confirmed-with-status-link');
  await toStatus.click();
  await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'pending_review');
  await expect(page.getByText('pending_review')).toHaveCount(0);
  await expect(page.getByText('Waiting for review')).toBeVisible();
  await expect(page.getByText(VIDEO)).toHaveCount(0); // the location only once booked

  // The owner approves; the page turns to the booked meeting without a reload.
  const ownerContext = await ownerSignedIn(browser, owner.ownerEmail);
  const list = await (await ownerContext.request.get('/api/trpc/proposals.listPending')).json();
  const id = list.result.data.proposals.find((p: { requester?: { email: string } }) => p.requester?.email === email)?.proposal_id as string;
  const approve = await ownerContext.request.post('/api/trpc/proposals.approve', { data: { proposal_id: id } });
  expect(approve.status(), await approve.text()).toBe(200);
  await ownerContext.close();
  await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'booked', { timeout: 15_000 });
  await expect(page.getByRole('heading', { name: 'Your meeting is booked' })).toBeVisible();
  await expect(page.getByText('booked', { exact: true })).toHaveCount(0);
  await expect(page.getByText(owner.ownerName, { exact: true })).toBeVisible();
  await expect(page.getByText(timeLabel(start, ZONE, LOCALE), { exact: false })).toBeVisible();
  await expect(page.getByRole('link', { name: VIDEO })).toHaveAttribute('href', VIDEO);
  await screenshot(page, testInfo, '13-02-status-booked');
  await expectAccessible(page, 'status page (booked)');
  await expectNoLeaks(page, { ...link, ownerEmail: owner.ownerEmail }, page.url());
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, testInfo, '13-03-status-booked-dark');
  await expectAccessible(page, 'status page (booked, dark)');
  await page.emulateMedia({ colorScheme: 'light' });

  const accepted = await waitForMail(email, { subject: /accepted/ });
  expect(accepted.text).toContain(`(${ZONE})`);
  expect(accepted.text).toContain(`Where: ${VIDEO}`);

  // "Add to calendar": an .ics download of this meeting.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Add to calendar' }).click()]);
  expect(download.suggestedFilename()).toBe('meeting.ics');
  const ics = fs.readFileSync((await download.path())!, 'utf8');
  expect(ics).toContain('BEGIN:VEVENT');
  expect(ics).toContain(`LOCATION:${VIDEO}`);
  expect(ics).toContain(`DTSTART:${start.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`);

  // "Cancel this meeting", by keyboard, with a reason.
  const since = Date.now();
  await page.getByRole('button', { name: 'Cancel this meeting' }).focus();
  await page.keyboard.press('Enter');
  const reason = page.getByLabel('Reason (optional)');
  await expect(reason).toBeFocused();
  await page.keyboard.type('My plans changed, sorry.');
  await screenshot(page, testInfo, '13-04-cancel-question');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Yes, cancel the meeting' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-status]')).toHaveAttribute('data-shown', 'cancelled');
  await expect(page.getByRole('heading', { name: 'This meeting was cancelled' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add to calendar' })).toHaveCount(0);
  await screenshot(page, testInfo, '13-05-status-cancelled');
  await expectAccessible(page, 'status page (cancelled)');

  // The owner is told, in their own zone (Europe/Berlin), with the reason.
  const told = await waitForMail(owner.ownerEmail, { subject: /^Cancelled by Nora York/, after: since - 1000 });
  expect(told.text).toContain('(Europe/Berlin)');
  expect(told.text).toContain('My plans changed, sorry.');
  expect(problems, 'browser errors').toEqual([]);
});
