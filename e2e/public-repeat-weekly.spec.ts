import { randomBytes } from 'node:crypto';
import { Temporal } from 'temporal-polyfill';
import { expect, test } from './test';
import { expectAccessible, publicLink, screenshot, verificationMail } from './publicFixtures';
import { baseUrls } from './servers';

/**
 * Issue 40, "Public meeting types may offer 'repeat weekly for N weeks'" (docs/public-scheduling.md
 * "Repeating weekly"): on a phone, a requester asks for a time weekly for 6 weeks; one of the weeks
 * is taken, so the page names that week and nothing is sent; they pick another time, send, confirm
 * their email, and the status page shows the 6 dates, one week apart at the same time. Axe on each step.
 */
const ZONE = 'Europe/Berlin';
test.use({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, locale: 'en-GB', hasTouch: true });

/** The same Berlin wall-clock time `weeks` weeks later (what a weekly series keeps). */
function weeksLater(iso: string, weeks: number): string {
  const at = Temporal.Instant.from(iso).toZonedDateTimeISO(ZONE).add({ weeks });
  return at.toInstant().toString({ smallestUnit: 'millisecond' });
}

test('a requester books "weekly for 6 weeks" and sees the 6 dates; a week that is not free is named first', async ({ page }, info) => {
  test.setTimeout(120_000);
  const link = await publicLink(page.request, 'weekly');
  const headers = { Authorization: `Bearer ${link.key}` };
  const created = await page.request.post(`${baseUrls[0]}/v1/public-scheduling/links/${link.linkId}/meeting-types`, {
    headers,
    data: { slug: 'coaching', title: 'Coaching', duration_minutes: [30], meeting_class: 'external', book_instantly: true, repeat_weekly_max_weeks: 8 },
  });
  expect(created.status(), await created.text()).toBe(201);

  await page.goto(`/${link.alias}/coaching`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Coaching');
  // A whole day of times: the second day with free times (today may have only its last one left).
  const freeDays = page.locator('button[data-date][data-free]');
  await expect(freeDays.first()).toBeVisible();
  if ((await freeDays.count()) > 1) await freeDays.nth(1).click();
  else {
    await page.getByRole('button', { name: 'Next month' }).click();
    await page.locator('button[data-date][data-free]').first().click();
  }
  const times = page.locator('button[data-start]');
  await expect(times.nth(2)).toBeVisible();
  const first = (await times.nth(1).getAttribute('data-start'))!;
  const second = (await times.nth(2).getAttribute('data-start'))!;

  // The third week of the first time is taken by an agent's booking.
  const taken = weeksLater(first, 2);
  const blocker = await page.request.post(`${baseUrls[0]}/v1/bookings`, {
    headers,
    data: { owner_email: link.ownerEmail, meeting_class: 'external', start: taken, end: new Date(Date.parse(taken) + 30 * 60_000).toISOString() },
  });
  expect(blocker.status(), await blocker.text()).toBe(201);

  const email = `weekly-${randomBytes(4).toString('hex')}@e2e.example`;
  const fillForm = async () => {
    await page.getByLabel('Your name').fill('Rory Repeat');
    await page.getByLabel('Your email').fill(email);
    const repeat = page.getByLabel('Repeat weekly', { exact: true });
    await expect(repeat).not.toBeChecked(); // off by default
    await repeat.check();
    await page.getByLabel('For how many weeks').fill('6');
    await expect(page.getByTestId('repeat-all-or-nothing')).toContainText('All the weeks are booked together, or none');
  };

  await times.nth(1).click();
  await expect(page.getByRole('heading', { name: 'Your details' })).toBeVisible();
  await fillForm();
  await screenshot(page, info, 'repeat-01-form');
  await expectAccessible(page, 'request form with repeat weekly');
  await page.getByRole('button', { name: 'Send request' }).click();

  // Nothing sent: the week that is not free is named, and the requester picks another time.
  const notFree = page.getByTestId('weeks-not-free');
  await expect(notFree).toContainText('One week is not free at this time, so nothing was sent');
  await expect(notFree.locator('li')).toHaveCount(1);
  await expect(notFree.locator('li')).toHaveAttribute('data-start', new Date(taken).toISOString());
  await screenshot(page, info, 'repeat-02-week-not-free');
  await expectAccessible(page, 'a week not free');
  await notFree.getByRole('button', { name: 'Pick another time' }).click();

  await page.locator(`button[data-start="${second}"]`).click();
  await fillForm();
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  await expect(page.getByText('You asked for this time every week: 6 meetings in all')).toBeVisible();
  await screenshot(page, info, 'repeat-03-sent');

  const mail = await verificationMail(email);
  expect(mail.text).toContain('Every week at this time, 6 meetings in all:');
  await page.goto(mail.verify);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('your email is confirmed and your meeting is booked')).toBeVisible();
  await page.getByRole('link', { name: "See your request's status" }).click();
  await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'booked');

  // The 6 dates: the picked time, then the same time every week.
  const weeks = page.getByTestId('weeks').locator('li');
  await expect(weeks).toHaveCount(6);
  const starts = await weeks.evaluateAll((items) => items.map((li) => li.getAttribute('data-start')));
  expect(starts).toEqual([0, 1, 2, 3, 4, 5].map((w) => new Date(weeksLater(second, w)).toISOString()));
  await expect(page.getByRole('heading', { name: 'Every week (6 meetings)' })).toBeVisible();
  await screenshot(page, info, 'repeat-04-status-six-dates');
  await expectAccessible(page, 'status page of a weekly series');
});
