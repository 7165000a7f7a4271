import { expect, test, type Page } from './test';
import { linksIn, waitForMail } from './mailbox';
import { dashboardOwner, expectAccessible, expectNoLeaks, ownerSignedIn, publicLink, screenshot, timeLabel, verifiedProposal } from './publicFixtures';

/**
 * Issue 28 item 5, the requester's half (docs/public-scheduling.md "Asking to move"): on the
 * status page of a booked meeting the requester asks to move it to another suggested time
 * (in their zone, with a note); the page shows the request waiting and offers no second one;
 * the owner is mailed in their zone, sees the request on the review page (old -> new) and
 * approves it there; the status page turns to the new time by itself; the requester is
 * mailed in their zone. On a phone, in New York.
 */
const ZONE = 'America/New_York';
const LOCALE = 'en-US';
test.use({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, locale: LOCALE, hasTouch: true });

function watchErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}

test('a requester asks to move a booked meeting; the owner approves it on the review page; the status page shows the new time', async ({ page, browser }, testInfo) => {
  test.setTimeout(180_000);
  const problems = watchErrors(page);
  const owner = await dashboardOwner(page.request, 'j28');
  const link = await publicLink(page.request, 'j28', owner);
  const { statusUrl, email, slot } = await verifiedProposal(page.request, link, 0);

  // The owner books it (the approval itself is the other journeys' subject).
  const ownerContext = await ownerSignedIn(browser, owner.ownerEmail);
  const list = await (await ownerContext.request.get('/api/trpc/proposals.listPending')).json();
  const id = list.result.data.proposals.find((p: { requester?: { email: string } }) => p.requester?.email === email)?.proposal_id as string;
  const approve = await ownerContext.request.post('/api/trpc/proposals.approve', { data: { proposal_id: id } });
  expect(approve.status(), await approve.text()).toBe(200);

  // The status page of the booked meeting: "Ask to move" beside "Add to calendar" and "Cancel this meeting".
  await page.goto(statusUrl);
  await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'booked');
  await expect(page.getByText(timeLabel(slot.start, ZONE, LOCALE), { exact: false }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add to calendar' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Cancel this meeting' })).toBeVisible();
  await page.getByRole('button', { name: 'Ask to move' }).click();
  await expect(page.getByText('Ask to move this meeting')).toBeFocused();
  const times = page.locator('button[data-move-start]');
  await expect(times.first()).toBeVisible();
  // Never the current time; pick a later one.
  expect(await page.locator(`button[data-move-start="${slot.start}"]`).count()).toBe(0);
  const pick = times.nth(3);
  const newStart = (await pick.getAttribute('data-move-start'))!;
  await pick.click();
  await expect(pick).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByText(/^New time: /)).toContainText(timeLabel(newStart, ZONE, LOCALE));
  await page.getByLabel('Note for the calendar owner (optional)').fill('Could we meet a bit later? My train is delayed.');
  await screenshot(page, testInfo, '28-01-ask-to-move');
  await expectAccessible(page, 'status page (ask to move)');

  const since = Date.now();
  await page.getByRole('button', { name: 'Send request to move' }).click();
  const note = page.getByTestId('move-request');
  await expect(note).toHaveAttribute('data-move-status', 'pending_review');
  await expect(note).toContainText(timeLabel(newStart, ZONE, LOCALE));
  // One request at a time: no second "Ask to move" while it waits; the meeting keeps its time.
  await expect(page.getByRole('button', { name: 'Ask to move' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Cancel this meeting' })).toBeVisible();
  await screenshot(page, testInfo, '28-02-move-requested');
  await expectAccessible(page, 'status page (move requested)');
  await expectNoLeaks(page, link, page.url());

  // The owner's mail, in their zone, links the review page.
  const asked = await waitForMail(owner.ownerEmail, { subject: /asks to move/, after: since - 1000 });
  expect(asked.text).toContain('(Europe/Berlin)');
  expect(asked.text).not.toMatch(/UTC|\d{4}-\d{2}-\d{2}T/);
  const review = linksIn(asked).find((l) => l.includes('/dashboard/proposals/'));
  expect(review, asked.text).toBeTruthy();

  // The review page: a request to move, old -> new; approving moves the meeting in place.
  const ownerPage = await ownerContext.newPage();
  await ownerPage.setViewportSize({ width: 1280, height: 900 });
  await ownerPage.goto(new URL(review!).pathname);
  await expect(ownerPage.getByTestId('move-badge')).toBeVisible();
  await expect(ownerPage.getByTestId('move-times')).toContainText('from');
  await expect(ownerPage.getByText('Could we meet a bit later? My train is delayed.')).toBeVisible();
  await screenshot(ownerPage, testInfo, '28-03-review-move');
  await expectAccessible(ownerPage, 'review page (request to move)');
  await ownerPage.getByRole('button', { name: 'Approve' }).click();
  await expect(ownerPage.getByTestId('review-outcome')).toContainText('the meeting moved');
  await screenshot(ownerPage, testInfo, '28-04-review-moved');
  await ownerContext.close();

  // The status page turns to the new time without a reload.
  await expect(note).toHaveAttribute('data-move-status', 'booked', { timeout: 20_000 });
  await expect(page.getByText(timeLabel(newStart, ZONE, LOCALE), { exact: false }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Ask to move' })).toBeVisible();
  await screenshot(page, testInfo, '28-05-status-moved');
  await expectAccessible(page, 'status page (moved)');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, testInfo, '28-06-status-moved-dark');
  await expectAccessible(page, 'status page (moved, dark)');
  await page.emulateMedia({ colorScheme: 'light' });

  // The requester's mail, in their zone (the zone the status page showed times in).
  const moved = await waitForMail(email, { subject: /^Your meeting was moved$/, after: since - 1000 });
  expect(moved.text).toContain(`(${ZONE})`);
  expect(moved.text).not.toMatch(/GMT|UTC|\d{4}-\d{2}-\d{2}T/);
  expect(problems, 'browser errors').toEqual([]);
});
