import { expect, test, type Page } from './test';
import { baseUrls } from './servers';
import { dashboardOwner, signInWithPassword } from './dashboard';

/** Holds the page's scripts back 1.5 s: the server's HTML is all there is for a while. */
async function slowScripts(page: Page): Promise<void> {
  await page.route('**/_next/static/chunks/**', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await route.continue();
  });
}

/**
 * A form's controls wait for the page to hydrate (docs/dashboard.md "Forms"): on a slow phone the
 * server's HTML is on screen before React is, and what a person typed into it then was put back to
 * the form's defaults when react-hook-form took the fields over. Here the page's scripts are held
 * back so that the server's HTML is all there is for a while.
 */
test('a form typed into while its scripts still load keeps what was typed and checks it', async ({ page }) => {
  await slowScripts(page);
  await page.goto(`${baseUrls[0]}/signin`, { waitUntil: 'commit' });
  const email = page.getByLabel('Email', { exact: true });
  const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
  // The server's HTML: the fields and the button are there, and not usable yet.
  await expect(email).toBeVisible();
  await expect(email).toBeDisabled();
  await expect(signIn).toBeDisabled();

  // A person types as soon as the field takes input (fill waits for it): the text stays.
  await email.fill('early@e2e.example');
  await expect(page.locator('form[data-hydrated]').first()).toBeAttached();
  await expect(email).toHaveValue('early@e2e.example');
  // And the form's own checks see it: only the empty password is refused.
  await signIn.click();
  await expect(page.getByRole('alert').filter({ hasText: 'Enter your password' })).toBeVisible();
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(email).not.toHaveAttribute('aria-invalid', 'true');
  expect(new URL(page.url()).search).toBe('');
});

test('a schedule field emptied while the page still loads is checked like one emptied later', async ({ page }) => {
  // Before: a change made to the server's HTML never reached react-hook-form, so the emptied field
  // showed no message and "Save" would have saved the time zone the field no longer showed.
  const owner = await dashboardOwner(page.request, 'early-input');
  await signInWithPassword(page, owner);
  await slowScripts(page);
  await page.goto(`${owner.base}/dashboard/schedule`, { waitUntil: 'commit' });
  const tz = page.getByLabel('Time zone');
  await expect(tz).toBeVisible();
  await tz.fill('');
  await expect(page.getByText('Fill this in')).toBeVisible();
  await expect(tz).toHaveAttribute('aria-invalid', 'true');
});
