import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap, docShot } from './dashboard';

/**
 * Issue 40, "an owner sees a series and cancels one occurrence" (docs/dashboard.md "Recurring
 * series"): an agent books a weekly series over REST; the owner sees its occurrences marked on
 * the week, opens one by keyboard, goes to the series as one meeting (the rule in words, the
 * agent, every occurrence with its status), cancels one occurrence in the confirmation dialog,
 * and sees it cancelled while the others stay booked; axe on each view, desktop and phone.
 */
test.describe('issue 40: a recurring series on the owner’s dashboard', () => {
  test.setTimeout(120_000);

  test('the owner sees the series as one meeting with its occurrences and cancels one of them', async ({ page }, info) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const owner = await dashboardOwner(page.request, 'series');
    const agent = await owner.api('POST', '/v1/agents', { name: 'Planning assistant', owner_scope: 'org:*', permissions: ['read_availability', 'create_bookings'] });
    const { api_key } = await owner.api('POST', `/v1/agents/${agent.agent_id}/keys`, {});
    const res = await page.request.post(`${owner.base}/v1/bookings`, {
      headers: { Authorization: `Bearer ${api_key}`, 'Idempotency-Key': randomBytes(8).toString('hex') },
      data: { owner_email: owner.email, meeting_class: 'internal', start: berlin(3, '10:00'), end: berlin(3, '11:00'), title: 'Design review', recurrence: 'FREQ=WEEKLY;BYDAY=WE;COUNT=4' },
    });
    const series = await res.json();
    expect(res.status(), JSON.stringify(series)).toBe(201);
    const ids: string[] = series.series.bookings.map((b: { booking_id: string }) => b.booking_id);
    expect(ids).toHaveLength(4);

    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(series.start)}`);
    const week = page.getByRole('region', { name: /Week of/ });
    // The occurrence's block carries the series mark, read aloud as "recurring series".
    const block = week.getByRole('link', { name: /^Design review\s*, 10:00–11:00 · internal · recurring series$/ });
    await expect(block).toBeVisible();
    await expectAccessible(page, 'week with a series occurrence');
    await snap(page, info, '01-week-series');

    // Keyboard: Enter opens the details, which place it in its series.
    await block.focus();
    await page.keyboard.press('Enter');
    const details = page.getByRole('dialog', { name: 'Design review' });
    await expect(details.getByTestId('claim-series')).toContainText('Weekly on Wednesday, 4 times · meeting 1 of 4');
    await expect(details).toContainText('recurring series');
    await expectAccessible(page, 'series occurrence details');
    await snap(page, info, '02-details-series');
    await details.getByRole('link', { name: 'See all its meetings' }).click();

    // The series as one meeting: the rule in words, the agent, its four meetings booked.
    await expect(page.getByRole('heading', { level: 1, name: 'Design review' })).toBeVisible();
    const facts = page.getByTestId('series-facts');
    await expect(facts).toContainText('Weekly on Wednesday, 4 times');
    await expect(facts).toContainText('Planning assistant');
    await expect(facts).toContainText('4 booked');
    const list = page.getByRole('list', { name: 'Meetings' });
    const items = list.getByRole('listitem');
    await expect(items).toHaveCount(4);
    for (let i = 0; i < 4; i++) await expect(items.nth(i)).toHaveAttribute('data-status', 'confirmed');
    await expectAccessible(page, 'series page');
    await snap(page, info, '03-series');
    await docShot(page, 'dashboard-series');

    // Cancel the second meeting only, by keyboard, with a reason.
    const second = items.nth(1);
    const cancel = second.getByRole('button', { name: /^Cancel the meeting of / });
    await cancel.focus();
    await page.keyboard.press('Enter');
    const ask = page.getByRole('dialog', { name: 'Cancel “Design review”?' });
    await expect(ask).toBeVisible();
    const scope = ask.getByRole('radiogroup', { name: 'Which meetings' });
    await expect(scope.getByRole('radio', { name: /This meeting only/ })).toBeChecked();
    await expect(scope.getByRole('radio', { name: /This and the following meetings \(3 meetings still booked\)/ })).toBeVisible();
    await expect(scope.getByRole('radio', { name: /The whole series \(4 meetings still booked\)/ })).toBeVisible();
    // No reason: refused inline, nothing cancelled.
    await ask.getByRole('button', { name: 'Cancel this meeting' }).click();
    await expect(ask.getByText('Say why, so the attendees know')).toBeVisible();
    await ask.getByLabel('Reason').fill('Team offsite that week');
    await expectAccessible(page, 'series cancel dialog');
    await snap(page, info, '04-cancel-one');
    await docShot(page, 'dashboard-series-cancel');
    await ask.getByRole('button', { name: 'Cancel this meeting' }).click();
    await expect(ask).toBeHidden();

    // The second is cancelled with its reason, the others still booked.
    await expect(second).toHaveAttribute('data-status', 'cancelled');
    await expect(second).toContainText('cancelled');
    await expect(second).toContainText('Team offsite that week');
    for (const i of [0, 2, 3]) await expect(items.nth(i)).toHaveAttribute('data-status', 'confirmed');
    await expect(facts).toContainText('3 booked · 1 cancelled');
    await snap(page, info, '05-one-cancelled');
    const read = async (id: string) => (await owner.api('GET', `/v1/bookings/${id}`)).status;
    expect(await Promise.all(ids.map(read))).toEqual(['confirmed', 'cancelled', 'confirmed', 'confirmed']);

    // On a phone: no sideways scroll, the meetings and their actions still read.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect(items).toHaveCount(4);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'series page on a phone');
    await snap(page, info, '06-series-phone');
    await items.nth(2).getByRole('button', { name: /^Cancel the meeting of / }).click();
    await expect(page.getByRole('dialog', { name: 'Cancel “Design review”?' })).toBeVisible();
    await expectAccessible(page, 'series cancel dialog on a phone');
    await snap(page, info, '07-cancel-phone');
  });
});
