import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from './test';
import {
  dashboardOwner,
  expectAccessible,
  expectNoLeaks,
  ownerSignedIn,
  publicLink,
  screenshot,
  tabTo,
  timeLabel,
  verificationMail,
  verifiedProposal,
  audienceType,
  type PublicLink,
} from './publicFixtures';
import { baseUrls } from './servers';

/**
 * The requester's journeys through the public booking pages (docs/dashboard.md
 * "Public pages"), on a phone-sized viewport in a non-UTC time zone, with the
 * mail going through the run's loopback SMTP server.
 */
const ZONE = 'Asia/Tokyo'; // UTC+9 (and not the owner's Europe/Berlin): a UTC or owner-zone rendering shows other clock times
const LOCALE = 'en-GB';
test.use({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, locale: LOCALE, hasTouch: true });

function watchErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  return problems;
}

/** Link page -> meeting type -> first suggested time -> form -> "check your email"; answers the chosen time. */
async function requestFirstTime(page: Page, link: PublicLink, email: string, opts: { keyboard?: boolean; shots?: (name: string) => Promise<void> } = {}) {
  await page.goto(`/${link.alias}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Book time with Ada');
  await opts.shots?.('01-link-page');
  const typeLink = page.getByRole('link', { name: /Intro call/ });
  if (opts.keyboard) {
    await tabTo(page, typeLink);
    await page.keyboard.press('Enter');
  } else await typeLink.click();
  await expect(page).toHaveURL(new RegExp(`/${link.alias}/${link.slug}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Intro call');
  await expect(page.getByLabel('Your time zone')).toHaveValue(ZONE);

  const first = page.locator('button[data-start]').first();
  await expect(first).toBeVisible();
  const start = (await first.getAttribute('data-start'))!;
  await opts.shots?.('02-meeting-type-times');
  // Shown in the requester's zone: the label is the Kolkata wall clock, not UTC's.
  expect(await first.textContent()).toBe(timeLabel(start, ZONE, LOCALE));
  expect(timeLabel(start, ZONE, LOCALE)).not.toBe(timeLabel(start, 'UTC', LOCALE));

  if (opts.keyboard) {
    // The times are one Tab stop; the arrow keys move between them (issue 45 item 5).
    await tabTo(page, first);
    const second = page.locator('button[data-start]').nth(1);
    await page.keyboard.press('ArrowRight');
    await expect(second).toBeFocused();
    await page.keyboard.press('ArrowLeft');
    await expect(first).toBeFocused();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-start'))).toBe(false);
    await page.keyboard.press('Shift+Tab');
    await expect(first).toBeFocused();
    await page.keyboard.press('Enter');
  } else await first.click();
  await expect(page.getByRole('heading', { name: 'Your details' })).toBeFocused();
  await expect(page.getByText(`Intro call, `)).toContainText(timeLabel(start, ZONE, LOCALE));

  if (opts.keyboard) {
    await tabTo(page, page.getByLabel('Your name'));
    await page.keyboard.type('Rhea Requester');
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await tabTo(page, page.getByLabel('Message (optional)'));
    await page.keyboard.type('Looking forward to it.');
    await tabTo(page, page.getByRole('button', { name: 'Send request' }));
    await page.keyboard.press('Enter');
  } else {
    // An invalid address is refused inline, under its field, before anything is sent.
    await page.getByLabel('Your name').fill('Rhea Requester');
    await page.getByLabel('Your email').fill('not-an-email');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect(page.getByLabel('Your email')).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('Your email').fill(email);
    await page.getByRole('button', { name: 'Add a person' }).click();
    await page.getByLabel('Attendee 1 email').fill(`guest-${randomBytes(3).toString('hex')}@e2e.example`);
    await page.getByLabel('Message (optional)').fill('Looking forward to it.');
    await opts.shots?.('03-meeting-type-form');
    await page.getByRole('button', { name: 'Send request' }).click();
  }
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  // Focus goes on from the next step, never back to the page's top.
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeFocused();
  await expect(page.getByText(email)).toBeVisible();
  await opts.shots?.('04-submitted');
  return start;
}

test.describe('public booking pages', () => {
  test('journey 2: a requester on a phone books a suggested time in their own zone, verifies by mail and sees pending_review', async ({ page }, testInfo) => {
    const problems = watchErrors(page);
    const link = await publicLink(page.request, 'j2');
    const email = `rhea-${randomBytes(4).toString('hex')}@e2e.example`;
    const shots = (name: string) => screenshot(page, testInfo, name);

    await page.goto(`/${link.alias}`);
    await expectAccessible(page, 'link page');
    await expectNoLeaks(page, link, `${baseUrls[0]}/${link.alias}`);
    await page.goto(`/${link.alias}/${link.slug}`);
    await expect(page.locator('button[data-start]').first()).toBeVisible();
    await expectAccessible(page, 'meeting type page');
    await expectNoLeaks(page, link, `${baseUrls[0]}/${link.alias}/${link.slug}`);

    const start = await requestFirstTime(page, link, email, { shots });

    const mail = await verificationMail(email);
    expect(mail.text).toContain(link.ownerName);
    await page.goto(mail.verify);
    await expect(page.getByRole('heading', { name: 'Confirm your email' })).toBeVisible();
    await shots('05-confirm-email');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText('your email is confirmed')).toBeVisible();
    // The button goes away; focus moves to the answer, not to <body> (issue 45 item 5).
    await expect(page.getByRole('status').filter({ hasText: 'your email is confirmed' })).toBeFocused();

    // The status_url itself: a page for the browser ...
    await page.goto(mail.status);
    await expect(page).toHaveURL(mail.status);
    await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'pending_review');
    // Words, never the raw code (issue 23 item 13).
    await expect(page.getByText('pending_review')).toHaveCount(0);
    await expect(page.getByText('Waiting for review')).toBeVisible();
    await expect(page.getByRole('heading', { name: `Waiting for ${link.ownerName} to review your request` })).toBeVisible();
    await expect(page.getByText(timeLabel(start, ZONE, LOCALE), { exact: false })).toBeVisible();
    await shots('06-status-pending-review');
    await expectAccessible(page, 'status page');
    await expectNoLeaks(page, link, mail.status);

    // ... and the JSON of the API for everyone else, from the same URL.
    for (const accept of ['application/json', '*/*', 'application/json, text/html;q=0.5']) {
      const api = await page.request.get(mail.status, { headers: { accept } });
      expect(api.headers()['content-type'], accept).toContain('application/json');
      expect(await api.json()).toEqual({ status: 'pending_review', updated_at: expect.any(String) });
    }
    expect(problems, 'browser errors').toEqual([]);
  });

  test('journey 5: a requester withdraws a pending proposal from the status page, with the keyboard alone', async ({ page }, testInfo) => {
    const problems = watchErrors(page);
    const link = await publicLink(page.request, 'j5');
    const email = `wanda-${randomBytes(4).toString('hex')}@e2e.example`;
    await requestFirstTime(page, link, email, { keyboard: true });

    // The confirmation page links to the status page; so does the mail.
    const statusLink = page.getByRole('link', { name: 'See the status of your request' });
    await tabTo(page, statusLink);
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'pending_requester_verification');
    const statusUrl = page.url();
    expect(statusUrl).toBe((await verificationMail(email)).status);

    const withdraw = page.getByRole('button', { name: 'Withdraw request' });
    const question = page.getByRole('group', { name: 'Withdraw this request?' });
    // The button is in the server's HTML before the page hydrates; a key pressed before then does nothing,
    // as for any person, so the press is repeated until the page has answered it.
    await expect(async () => {
      if (await question.isVisible()) return;
      await tabTo(page, withdraw);
      await page.keyboard.press('Enter');
      await expect(question).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(question).toBeFocused();
    // Escape closes the question and gives the focus back; asked again, it is answered.
    await page.keyboard.press('Escape');
    await expect(page.getByRole('button', { name: 'Withdraw request' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(question).toBeFocused();
    await screenshot(page, testInfo, 'withdraw-question');
    await tabTo(page, question.getByRole('button', { name: 'Yes, withdraw' }));
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'withdrawn');
    await expect(page.getByRole('heading', { name: 'You withdrew this request' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Withdraw request' })).toHaveCount(0);
    await screenshot(page, testInfo, 'status-withdrawn');
    await expectAccessible(page, 'status page (withdrawn)');

    const api = await page.request.get(statusUrl, { headers: { accept: 'application/json' } });
    expect((await api.json()).status).toBe('withdrawn');
    // The mailed confirmation link no longer confirms anything.
    await page.goto((await verificationMail(email)).verify);
    await expect(page.getByRole('heading', { name: 'Request withdrawn' })).toBeVisible();
    expect(problems, 'browser errors').toEqual([]);
  });

  test('journey 3, the requester\'s side: an approval shows as booked and a decline as declined, without reloading the status page', async ({ page, browser }, testInfo) => {
    const problems = watchErrors(page);
    const owner = await dashboardOwner(page.request, 'j3');
    const link = await publicLink(page.request, 'j3', owner);
    const approved = await verifiedProposal(page.request, link, 0);
    const declined = await verifiedProposal(page.request, link, 1);

    // Both requesters watch their status pages.
    await page.goto(approved.statusUrl);
    await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'pending_review');
    const other = await page.context().newPage();
    await other.goto(declined.statusUrl);
    await expect(other.locator('[data-status]')).toHaveAttribute('data-status', 'pending_review');

    // The owner decides through the dashboard's tRPC API (signed in with an emailed link).
    const ownerContext = await ownerSignedIn(browser, owner.ownerEmail);
    const list = await (await ownerContext.request.get('/api/trpc/proposals.listPending')).json();
    const idOf = (email: string) => list.result.data.proposals.find((p: { requester?: { email: string } }) => p.requester?.email === email)?.proposal_id as string;
    const approve = await ownerContext.request.post('/api/trpc/proposals.approve', { data: { proposal_id: idOf(approved.email) } });
    expect(approve.status(), await approve.text()).toBe(200);
    const decline = await ownerContext.request.post('/api/trpc/proposals.decline', { data: { proposal_id: idOf(declined.email), reason: 'I am away that week.' } });
    expect(decline.status(), await decline.text()).toBe(200);
    await ownerContext.close();

    // No reload: the pages refresh themselves while pending.
    await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'booked');
    await expect(page.getByRole('heading', { name: 'Your meeting is booked' })).toBeVisible();
    await expect(page.getByText(timeLabel(approved.slot.start, ZONE, LOCALE), { exact: false })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Withdraw request' })).toHaveCount(0);
    await screenshot(page, testInfo, 'status-booked');
    await expect(other.locator('[data-status]')).toHaveAttribute('data-status', 'declined');
    await expect(other.getByRole('heading', { name: 'Your request was declined' })).toBeVisible();
    await expect(other.getByText('I am away that week.')).toBeVisible();
    await screenshot(other, testInfo, 'status-declined');
    await expectAccessible(page, 'status page (booked)');
    await expectAccessible(other, 'status page (declined)');
    expect(problems, 'browser errors').toEqual([]);
  });

  test('an access key unlocks an audience\'s meeting type; the key lives in an HttpOnly cookie, never in the address', async ({ page }) => {
    const link = await publicLink(page.request, 'aud');
    const partner = await audienceType(page.request, link);
    await page.goto(`/${link.alias}`);
    await expect(page.getByRole('link', { name: /Intro call/ })).toBeVisible();
    await expect(page.getByRole('link', { name: new RegExp(partner.title) })).toHaveCount(0);

    await page.getByText('Have an access key?').click();
    await page.getByLabel('Access key').fill('rc_not-a-key');
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect(page.getByText('This key is not valid for this page.')).toBeVisible();
    await page.getByLabel('Access key').fill(partner.credential);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect(page.getByRole('link', { name: new RegExp(partner.title) })).toBeVisible();
    await expect(page.getByText('Using your access key.')).toBeVisible();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'requester_credential');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', value: partner.credential });
    expect(page.url()).not.toContain('rc_');

    await page.getByRole('link', { name: new RegExp(partner.title) }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(partner.title);
    await expect(page.locator('button[data-start]').first()).toBeVisible();

    await page.goto(`/${link.alias}`);
    await page.getByRole('button', { name: 'Forget it' }).click();
    await expect(page.getByRole('link', { name: new RegExp(partner.title) })).toHaveCount(0);
    expect((await page.context().cookies()).find((c) => c.name === 'requester_credential')).toBeUndefined();
  });

  test('a request in the requester\'s own words from the link page; unknown links are 404 pages', async ({ page }) => {
    const link = await publicLink(page.request, 'free');
    const email = `fred-${randomBytes(4).toString('hex')}@e2e.example`;
    await page.goto(`/${link.alias}`);
    await page.getByRole('button', { name: 'Write a request' }).click();
    const form = page.getByRole('form', { name: 'Send a request' });
    await expect(form.getByLabel('Your name')).toBeFocused();
    await form.getByLabel('Your name').fill('Fred');
    await form.getByLabel('Your email').fill(email);
    await form.getByRole('button', { name: 'Send request' }).click();
    await expect(form.getByText('Please say what you would like to meet about')).toBeVisible();
    await form.getByLabel('What would you like to meet about?').fill('A chat about the analytical engine, any morning next week.');
    await form.getByRole('button', { name: 'Send request' }).click();
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    const mail = await verificationMail(email);
    await page.goto(mail.status);
    await expect(page.getByText('Not given (a request in your own words)')).toBeVisible();

    expect((await page.goto(`/${link.alias}-missing`))!.status()).toBe(404);
    expect((await page.goto(`/${link.alias}/no-such-type`))!.status()).toBe(404);
    expect((await page.goto('/public/booking-proposals/pt_unknown'))!.status()).toBe(404);
  });
});
