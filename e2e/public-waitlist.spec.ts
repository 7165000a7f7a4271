import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import { linksIn, waitForMail } from './mailbox';
import { expectAccessible, publicLink, screenshot } from './publicFixtures';
import { baseUrls } from './servers';

/**
 * Issue 40 item 2, the requester's waitlist (docs/public-scheduling.md "Waitlist"): on a phone, a
 * requester finds a day full and joins the waitlist for an hour of it; an agent cancels a
 * booking there; the offer's mail arrives with the entry's page; the requester opens it and
 * confirms the held time, which books it (the type books instantly). Each page passes axe.
 */
const ZONE = 'Europe/Berlin';
test.use({ viewport: { width: 390, height: 844 }, timezoneId: ZONE, locale: 'en-GB', hasTouch: true });

/** The instant of a wall-clock time in Berlin on `date` (YYYY-MM-DD). */
function berlin(date: string, hhmm: string): string {
  const guess = new Date(`${date}T${hhmm}:00Z`);
  const offset = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' }).formatToParts(guess).find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(offset);
  const minutes = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  return new Date(guess.getTime() - minutes * 60_000).toISOString();
}

test('a requester waits for a full day, is offered freed time by mail and confirms it', async ({ page }, testInfo) => {
  test.setTimeout(240_000); // a journey of several pages, mails and axe runs
  const link = await publicLink(page.request, 'wl');
  const headers = { Authorization: `Bearer ${link.key}` };
  const base = baseUrls[0];
  const patched = await page.request.patch(`${base}/v1/public-scheduling/links/${link.linkId}/meeting-types/${link.slug}`, { headers, data: { book_instantly: true } });
  expect(patched.status(), await patched.text()).toBe(200);
  // Three days ahead (Berlin), the owner's whole working day (07:00-21:00) booked by an agent.
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date(Date.now() + 3 * 86_400_000));
  const book = async (from: string, to: string) => {
    const res = await page.request.post(`${base}/v1/bookings`, { headers, data: { owner_email: link.ownerEmail, meeting_class: 'external', start: berlin(date, from), end: berlin(date, to) } });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()).booking_id as string;
  };
  const morning = await book('07:00', '14:00');
  await book('14:00', '21:00');

  await page.goto(`/${link.alias}/${link.slug}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(link.typeTitle);
  await page.getByRole('button', { name: 'Join the waitlist' }).click();
  await page.getByRole('textbox', { name: 'Day', exact: true }).or(page.locator('input[type="date"]')).first().fill(date);
  await page.getByLabel('Only between these times').check();
  await page.getByLabel('From', { exact: true }).fill('10:00');
  await page.getByLabel('Until', { exact: true }).fill('11:00');
  const email = `wanda-${randomBytes(4).toString('hex')}@e2e.example`;
  const wait = page.getByRole('region', { name: 'Join the waitlist' });
  await wait.getByLabel('Your name').fill('Wanda Waiter');
  await wait.getByLabel('Your email').fill(email);
  await expectAccessible(page, 'waitlist form');
  await screenshot(page, testInfo, 'waitlist-01-form');
  await wait.getByRole('button', { name: 'Join the waitlist' }).click();
  await expect(page.getByText(`You are on the waitlist. We sent an email to ${email}`)).toBeVisible();
  await screenshot(page, testInfo, 'waitlist-02-joined');

  const joined = await waitForMail(email, { subject: /on the waitlist/ });
  const entryPage = linksIn(joined).find((l) => l.includes('/waitlist/'))!;
  await page.goto(entryPage);
  await expect(page.getByRole('button', { name: 'Leave the waitlist' })).toBeVisible();
  await expectAccessible(page, 'waitlist entry, waiting');

  // An agent cancels the morning: the first half hour of the requester's hour is held for them.
  const cancelled = await page.request.post(`${base}/v1/bookings/${morning}/cancel`, { headers, data: {} });
  expect(cancelled.status(), await cancelled.text()).toBe(200);
  const offer = await waitForMail(email, { subject: /freed up/ });
  expect(linksIn(offer)).toContain(entryPage);
  expect(offer.text).toContain(`(${ZONE})`);

  await page.goto(entryPage);
  await expect(page.getByText('A time freed up')).toBeVisible();
  await expect(page.getByText('10:00')).toBeVisible();
  await expectAccessible(page, 'waitlist entry, offered');
  await screenshot(page, testInfo, 'waitlist-03-offered');
  await page.getByRole('button', { name: 'Confirm this time' }).click();
  await expect(page.getByText('You confirmed the time.')).toBeVisible();
  await screenshot(page, testInfo, 'waitlist-04-confirmed');
  await page.getByRole('link', { name: 'See your meeting’s status' }).click();
  await expect(page.getByRole('heading', { name: 'Your meeting is booked' })).toBeVisible();
  await expectAccessible(page, 'status after the waitlist');
  await waitForMail(email, { subject: /accepted/ });
});
