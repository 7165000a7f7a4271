import { expect, test } from './test';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';
import { usesPostgres } from './servers';

test.describe("journey 4: agents' bookings on the owner's week view", () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');

  test('a booking made through POST /v1/bookings shows on the week; a preempted one shows its history', async ({ page }, info) => {
    const owner = await dashboardOwner(page.request, 'calendar');
    const kept = await owner.api('POST', '/v1/bookings', {
      owner_email: owner.email,
      meeting_class: 'external',
      start: berlin(1, '09:30'),
      end: berlin(1, '10:30'),
      title: 'Quarterly review',
      attendees: [{ email: 'bill@initech.example', name: 'Bill' }],
    });
    const loser = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: berlin(3, '15:00'), end: berlin(3, '16:00'), title: 'Team retro' });
    const winner = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: berlin(3, '15:00'), end: berlin(3, '16:00'), title: 'Customer escalation' });
    expect(winner.preempted_booking_ids).toEqual([loser.booking_id]);

    await signInWithPassword(page, owner);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Calendar' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Calendar' })).toBeVisible();
    await expect(page.getByText('times in Europe/Berlin')).toBeVisible();
    // Nothing is left this week for this new owner: the calendar opens on the week of the next meeting and says so.
    await expect(page.getByRole('status').filter({ hasText: 'this is the week of your next meeting' })).toBeVisible();
    await expect(page.getByTestId(`day-${berlinDate(kept.start)}`)).toBeVisible();
    // "Show this week" goes back; "Next" from there reaches the week of the bookings again.
    await page.getByRole('link', { name: 'Show this week' }).click();
    await expect(page.getByTestId(`day-${berlinDate(kept.start)}`)).toBeHidden();
    await page.getByRole('link', { name: 'Next week' }).click();
    await expect(page).toHaveURL(new RegExp(`week=${berlinDate(berlin(1, '00:00'))}`));
    const week = page.getByRole('region', { name: /Week of/ });
    await expect(week.getByRole('link', { name: /^Quarterly review\s*, 09:30–10:30 · external/ })).toBeVisible();
    await expect(week.getByRole('link', { name: /Customer escalation.*15:00–16:00 · external/ })).toBeVisible();
    await expect(week.getByRole('link', { name: /Team retro.*internal · preempted/ })).toBeVisible();
    // Booked hours of Monday against the daily limit.
    await expect(page.getByTestId(`day-${berlinDate(kept.start)}`)).toContainText('1 / 6 h booked');
    await expectAccessible(page, 'calendar week view');
    await snap(page, info, '01-week');

    await week.getByRole('link', { name: /Quarterly review/ }).click();
    const details = page.getByRole('dialog', { name: 'Quarterly review' });
    await expect(details).toContainText('Bill <bill@initech.example>');
    await expect(details).toContainText('external');
    await expect(details.getByTestId('booking-history')).toContainText('Booked by');
    await page.keyboard.press('Escape');
    await expect(details).toBeHidden();

    await week.getByRole('link', { name: /Team retro/ }).click();
    const retro = page.getByRole('dialog', { name: 'Team retro' });
    await expect(retro).toContainText('preempted');
    await expect(retro.getByTestId('booking-history')).toContainText('Preempted by "Customer escalation" (external)');
    await snap(page, info, '02-preempted-history');

    // On a phone the week scrolls sideways inside its frame; the page itself does not.
    await page.keyboard.press('Escape');
    await expect(retro).toBeHidden();
    await expect(page).not.toHaveURL(/booking=/);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await snap(page, info, '03-week-phone');
  });
});
