import { expect, test } from './test';
import { dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';

/**
 * Issue 45 item 8: "Sign out" ends this browser's session only; "Sign out everywhere" on My
 * schedule ends every browser's (docs/dashboard.md "Sessions").
 */
test('signing out in one browser keeps the other signed in; "Sign out everywhere" ends both', async ({ browser }, info) => {
  const first = await browser.newContext();
  const owner = await dashboardOwner(first.request, 'sessions');
  const second = await browser.newContext();
  const a = await first.newPage();
  const b = await second.newPage();
  await signInWithPassword(a, owner);
  await signInWithPassword(b, owner);
  const me = async (page: typeof a) => (await page.request.get(`${owner.base}/api/trpc/session.me`)).status();

  await a.getByRole('button', { name: 'Sign out' }).click();
  await expect(a).toHaveURL(/\/signin/);
  expect(await me(a)).toBe(401);
  expect(await me(b), 'the other browser stays signed in').toBe(200);

  await signInWithPassword(a, owner);
  await b.goto(`${owner.base}/dashboard/schedule`);
  const rows = b.getByTestId('session-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('this browser');
  await expectAccessible(b, 'my schedule with sessions');
  await snap(b, info, 'sessions');
  await b.getByRole('button', { name: 'Sign out everywhere' }).click();
  await b.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(b).toHaveURL(/\/signin/);
  expect(await me(b)).toBe(401);
  expect(await me(a)).toBe(401);
  await first.close();
  await second.close();
});
