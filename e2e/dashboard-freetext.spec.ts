import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import { berlin, berlinDate, expectAccessible, snap } from './dashboard';
import { dashboardOwner, ownerSignedIn, publicLink, verificationMail } from './publicFixtures';
import { baseUrls, usesPostgres } from './servers';

/**
 * Issue 11: a request in the requester's own words (no meeting type, no
 * time) is approved from the review page: the owner picks a meeting class
 * and a length, looks up free times, tries a start of their own that
 * arbitration refuses, takes an alternative, and the requester's status page
 * shows the booking.
 */
test.describe('approving a free-text request', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');

  test('requester asks in their own words, verifies by mail; the owner approves at a chosen time and class; the status shows booked', async ({ page, browser }, info) => {
    const base = baseUrls[0];
    const owner = await dashboardOwner(page.request, 'free');
    const link = await publicLink(page.request, 'freetext', owner);
    const auth = { Authorization: `Bearer ${owner.key}` };
    expect([201, 409]).toContain((await page.request.post(`${base}/v1/meeting-classes`, { headers: auth, data: { name: 'internal', priority: 30 } })).status());

    // The requester, on a phone, writes a request from the link page.
    await page.setViewportSize({ width: 390, height: 844 });
    const email = `fay-${randomBytes(4).toString('hex')}@e2e.example`;
    await page.goto(`${base}/${link.alias}`);
    await page.getByRole('button', { name: 'Write a request' }).click();
    const form = page.getByRole('form', { name: 'Send a request' });
    await form.getByLabel('Your name').fill('Fay Requester');
    await form.getByLabel('Your email').fill(email);
    await form.getByLabel('What would you like to meet about?').fill('Half an hour about the engine drawings, any day next week.');
    await form.getByRole('button', { name: 'Send request' }).click();
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    const mail = await verificationMail(email);
    await page.goto(mail.verify);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText('your email is confirmed')).toBeVisible();

    // Next Wednesday 10:00-10:30 (Berlin) is taken by an external meeting.
    const clash = { start: berlin(3, '10:00'), end: berlin(3, '10:30') };
    const taken = await page.request.post(`${base}/v1/bookings`, { headers: { ...auth, 'Idempotency-Key': randomBytes(8).toString('hex') }, data: { owner_email: owner.ownerEmail, meeting_class: 'external', ...clash } });
    expect(taken.status(), await taken.text()).toBe(201);

    // The owner opens the request from the inbox.
    const ownerContext = await ownerSignedIn(browser, owner.ownerEmail);
    const o = await ownerContext.newPage();
    await o.setViewportSize({ width: 1280, height: 900 });
    await o.goto('/dashboard');
    await o.getByTestId('proposal-card').filter({ hasText: email }).getByRole('link').first().click();
    await expect(o).toHaveURL(/\/dashboard\/proposals\//);
    await expect(o.getByRole('group', { name: 'Book this request as' })).toBeVisible();
    await expect(o.getByText('Half an hour about the engine drawings').first()).toBeVisible();

    // Finding times needs a class: the rule shows under the field.
    await o.getByRole('button', { name: 'Find free times' }).click();
    await expect(o.getByText('Choose a meeting class')).toBeVisible();
    await o.getByLabel('Meeting class').selectOption('external');
    await o.getByLabel('Length (minutes)').fill('30');
    await o.getByRole('button', { name: 'Find free times' }).click();
    await expect(o.getByText(/\d+ free times in the coming days/)).toBeVisible();
    await expect(o.getByRole('radio', { name: /^Free: / }).first()).toBeChecked();
    await expectAccessible(o, 'review page (free-text request)');
    await snap(o, info, 'freetext-times');

    // A start of the owner's own that runs into the external meeting: arbitration refuses, with alternatives.
    await o.getByRole('radio', { name: /A start of my own/ }).click();
    await o.getByLabel('Start (Europe/Berlin)').fill(`${berlinDate(clash.start)}T10:00`);
    await o.getByRole('button', { name: 'Approve' }).click();
    const refused = o.getByTestId('approve-refused');
    await expect(refused).toContainText('Not booked');
    await expect(refused).toContainText('Pick one of the alternatives');
    const alternative = o.getByRole('radio', { name: /^Alternative: / }).first();
    await expect(alternative).toBeChecked();
    await snap(o, info, 'freetext-refused');
    await o.getByRole('button', { name: 'Approve' }).click();
    await expect(o.getByTestId('review-outcome')).toContainText('Approved and booked');
    await snap(o, info, 'freetext-approved');
    await ownerContext.close();

    // The requester's status page shows the booking.
    await page.goto(mail.status);
    await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'booked');
    await expect(page.getByRole('heading', { name: 'Your meeting is booked' })).toBeVisible();
    await snap(page, info, 'freetext-status-booked');
  });
});
