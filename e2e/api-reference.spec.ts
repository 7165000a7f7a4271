import { expect, test } from './test';
import { bootstrapKey } from './bootstrapKey';

/**
 * /docs/api (Swagger UI over /v1/openapi.json) with every request that leaves
 * the machine aborted: the page renders from the app's own assets, lists every
 * operation with its example request and errors, and "Try it out" sends the
 * bearer key given under Authorize.
 */
test('the API reference works offline and its "try it" sends the bearer key', async ({ page, request }) => {
  // Swagger UI renders the whole document (68 operations) in the browser; on two cores shared
  // with the other Playwright workers one run took 35 s to show the title and 7 s per click.
  test.setTimeout(150_000);
  const blocked: string[] = [];
  await page.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === '127.0.0.1' || host === 'localhost') return route.continue();
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));

  const doc = await (await request.get('/v1/openapi.json')).json();
  const operations = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p).filter((o) => typeof o === 'object' && 'operationId' in o));
  const { api_key } = await bootstrapKey('API reference e2e');

  await page.goto('/docs/api');
  await expect(page.locator('.swagger-ui .info .title')).toContainText('Scheduling service API', { timeout: 30_000 });
  // every operation is listed, with its summary
  await expect(page.locator('.opblock')).toHaveCount(operations.length);
  await expect(page.locator('#operations-Scheduling-createBooking .opblock-summary-description')).toHaveText('Book directly, without a hold');

  // an operation shows an example request and the errors it can answer
  await page.locator('#operations-Scheduling-createBooking .opblock-summary-control').click();
  const booking = page.locator('#operations-Scheduling-createBooking');
  await expect(booking.locator('.body-param__example, .opblock-section-request-body .microlight').first()).toContainText('owner_email');
  await expect(booking.locator('.responses-table .response[data-code="409"]')).toContainText('ARBITRATION_REJECTED');

  // Authorize with the agent key, then try GET /v1/notifications
  await page.locator('.auth-wrapper .authorize').click();
  const scheme = page.locator('.modal-ux .auth-container').filter({ hasText: 'apiKey' });
  await scheme.locator('input').fill(api_key);
  await scheme.getByRole('button', { name: 'Apply credentials' }).click();
  await expect(scheme.getByRole('button', { name: 'Remove authorization' })).toBeVisible();
  await scheme.getByRole('button', { name: 'Close' }).click();

  const op = page.locator('#operations-Scheduling-drainNotifications');
  await op.locator('.opblock-summary-control').click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/notifications') && r.method() === 'GET');
  await op.getByRole('button', { name: 'Execute' }).click();
  expect((await sent).headers()['authorization']).toBe(`Bearer ${api_key}`);
  await expect(op.locator('.live-responses-table tbody .response-col_status').first()).toHaveText('200');
  await expect(op.locator('.live-responses-table tbody .response-col_description')).toContainText('"notifications"');

  expect(problems, 'page errors').toEqual([]);
  expect(blocked.filter((u) => !u.startsWith('data:')), 'requests that would need the internet').toEqual([]);
});
