import { expect, test } from './test';
import { berlin, dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';
import { linksIn, waitForMail } from './mailbox';
import { baseUrls, usesPostgres } from './servers';

test.describe('journey 1: an owner signs in with an emailed link and sees the inbox', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');

  test('the link arrives over SMTP, signs in once, lands on the inbox; sign-out ends the session', async ({ page }, info) => {
    const owner = await dashboardOwner(page.request, 'link');
    await owner.api('POST', '/v1/booking-proposals', {
      owner_email: owner.email,
      meeting_class: 'external',
      duration_minutes: 30,
      window: { start: berlin(2, '10:00'), end: berlin(2, '11:30') },
      attendees: [{ email: 'guest@partner.example', name: 'Guest Partner' }],
      message: 'Kick-off for the partnership',
    });

    // A dashboard page without a session leads to the sign-in page, which returns there.
    await page.goto(`${owner.base}/dashboard`);
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fdashboard/);
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
    await expectAccessible(page, 'sign-in page');
    await snap(page, info, '01-signin');

    await page.getByRole('tab', { name: 'With email link' }).click();
    // The form validates with the provider's schema before sending.
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect(page.getByText('Fill this in')).toBeVisible(); // the plain-words error map (components/ui/plain-errors.ts)
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect(page.getByText('Check your email')).toBeVisible();
    await snap(page, info, '02-link-sent');

    const mail = await waitForMail(owner.email, { subject: /sign-in link/ });
    const link = linksIn(mail).find((l) => l.includes('/api/auth/callback/email'));
    expect(link, mail.text).toBeTruthy();

    await page.goto(link!);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
    const card = page.getByTestId('proposal-card').first();
    await expect(card).toContainText('Kick-off for the partnership');
    await expect(card).toContainText('Guest Partner <guest@partner.example>');
    await expectAccessible(page, 'inbox');
    await snap(page, info, '03-inbox');
    const me = await page.request.get(`${owner.base}/api/trpc/session.me`);
    expect((await me.json()).result.data.owner_email).toBe(owner.email);

    // Sign out: the session is gone and the dashboard asks for sign-in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin/);
    expect((await page.request.get(`${owner.base}/api/trpc/session.me`)).status()).toBe(401);

    // The link worked once.
    await page.goto(link!);
    await expect(page).toHaveURL(/\/signin\?error=Verification/);
    await expect(page.getByText('That sign-in link has expired or was already used')).toBeVisible();
    expect((await page.request.get(`${owner.base}/api/trpc/session.me`)).status()).toBe(401);

    // A wrong password is refused in place; the right one signs in.
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByText('The email or password is wrong.')).toBeVisible();
    await signInWithPassword(page, owner);
  });

  test('a link asked for an address that is no owner sends nothing and says the same', async ({ page }) => {
    const base = baseUrls[0];
    const stranger = `nobody-${Date.now()}@e2e.example`;
    await page.goto(`${base}/signin`);
    await page.getByRole('tab', { name: 'With email link' }).click();
    await page.getByLabel('Email', { exact: true }).fill(stranger);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect(page.getByText('Check your email')).toBeVisible();
    await expect(waitForMail(stranger, { timeoutMs: 2_000 })).rejects.toThrow(/no mail/);
  });
});
