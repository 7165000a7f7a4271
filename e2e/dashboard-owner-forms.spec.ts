import { expect, test } from './test';
import postgres from 'postgres';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap, docShot } from './dashboard';
import { databaseUrl, usesPostgres } from './servers';

/** Screenshots the docs show (docs/dashboard.md). */
test.describe('issue 23 items 2, 4 and 9: the schedule page says what the server refuses; plain words; cancel from a booking', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(150_000);
  // A 12-hour clock in the time inputs: messages name times the same way.
  test.use({ locale: 'en-US' });

  test('schedule: "Add range" fits, an overlap is refused under its range, other edits stay; messages in plain words', async ({ page }, info) => {
    const owner = await dashboardOwner(page.request, 'sched');
    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/schedule`);
    await expect(page.getByRole('heading', { level: 1, name: 'My schedule' })).toBeVisible();

    // Item 4: plain words, times in the input's (12-hour) format.
    const tz = page.getByLabel('Time zone');
    await tz.fill('');
    await expect(page.getByText('Fill this in')).toBeVisible();
    await tz.fill('Mars/Olympus');
    await expect(page.getByText('"Mars/Olympus" is not a time zone we know')).toBeVisible();
    await tz.fill('Europe/Berlin');
    const max = page.getByLabel('Maximum meeting hours per day');
    await max.fill('30');
    await expect(page.getByText('Enter 24 or less')).toBeVisible();
    await expect(page.locator('main')).not.toContainText(/Too small|Too big|expected (string|number)|received|HH:MM|IANA/);
    await snap(page, info, '01-plain-words');
    await max.fill('5');

    // Item 2: "Add range" proposes a range that fits after 09:00-17:00.
    await page.getByRole('button', { name: 'Add range to Monday' }).click();
    await expect(page.getByLabel('Monday range 2 start')).toHaveValue('17:00');
    await expect(page.getByLabel('Monday range 2 end')).toHaveValue('19:00');
    // An overlapping range: the preview leaves it out and says why under it; saving is refused there, the other edits stay.
    await page.getByLabel('Monday range 2 start').fill('13:00');
    await expect(page.getByText('overlaps another range of this day')).toBeVisible();
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await expect(page.getByText('Not saved: fix what is marked above')).toBeVisible();
    await expect(page.getByText('overlaps another range of this day')).toBeVisible();
    await expect(max).toHaveValue('5');
    await expectAccessible(page, 'schedule with a refused range');
    await snap(page, info, '02-overlap-refused');
    await docShot(page, 'dashboard-schedule-refused');
    const before = await owner.api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(owner.email)}`);
    expect(before.working_hours.mon).toEqual([{ start: '09:00', end: '17:00' }]);
    // Fixed: saved with every edit.
    await page.getByLabel('Monday range 2 start').fill('17:00');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await expect(page.getByText('Saved.')).toBeVisible();
    const after = await owner.api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(owner.email)}`);
    expect(after.working_hours.mon).toEqual([
      { start: '09:00', end: '17:00' },
      { start: '17:00', end: '19:00' },
    ]);
    expect(after.max_daily_meeting_hours).toBe(5);

    // Dark mode too.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'schedule (dark)');
  });

  test('booking details: cancel with a reason the agent receives; open the agent and the class', async ({ page }, info) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const owner = await dashboardOwner(page.request, 'cancel');
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update owners set role = 'admin' where email = ${owner.email}`;
    await sql.end();
    const booking = await owner.api('POST', '/v1/bookings', {
      owner_email: owner.email,
      meeting_class: 'internal',
      start: berlin(3, '10:00'),
      end: berlin(3, '11:00'),
      title: 'Design sync',
      attendees: [{ email: 'lee@e2e.example', name: 'Lee' }],
    });
    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(berlin(3, '10:00'))}&booking=${booking.booking_id}`);
    const details = page.getByRole('dialog', { name: 'Design sync' });
    await expect(details).toBeVisible();
    const agentLink = details.getByRole('link', { name: /E2E cancel/ });
    await expect(agentLink).toHaveAttribute('href', new RegExp(`/dashboard/admin/agents#agent-`));
    await expect(details.getByRole('link', { name: 'internal' })).toHaveAttribute('href', '/dashboard/admin/meeting-classes#class-internal');

    await details.getByRole('button', { name: 'Cancel booking' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel “Design sync”?' });
    await ask.getByRole('button', { name: 'Cancel booking' }).click();
    await expect(ask.getByText('Say why, so the attendees know')).toBeVisible();
    await ask.getByLabel('Reason').fill('Moved to the offsite next week');
    await expectAccessible(page, 'cancel booking dialog');
    await snap(page, info, '03-cancel-dialog');
    await docShot(page, 'dashboard-booking-cancel');
    await ask.getByRole('button', { name: 'Cancel booking' }).click();
    await expect(page.getByTestId('booking-history')).toContainText('Cancelled by you: Moved to the offsite next week');
    expect((await owner.api('GET', `/v1/bookings/${booking.booking_id}`)).status).toBe('cancelled');
    const notes = await owner.api('GET', '/v1/notifications');
    expect(notes.notifications).toContainEqual(expect.objectContaining({ kind: 'booking.cancelled', data: expect.objectContaining({ booking_id: booking.booking_id, reason: 'Moved to the offsite next week' }) }));
    await snap(page, info, '04-cancelled');

    // The agent's page.
    await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(berlin(3, '10:00'))}&booking=${booking.booking_id}`);
    await page.getByRole('dialog', { name: 'Design sync' }).getByRole('link', { name: /E2E cancel/ }).click();
    await expect(page).toHaveURL(/\/dashboard\/admin\/agents#agent-/);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  });

  test('on a phone the sections fold into one menu row (item 8)', async ({ page }, info) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const owner = await dashboardOwner(page.request, 'phone');
    await signInWithPassword(page, owner);
    const header = page.locator('header').first();
    const box = await header.boundingBox();
    expect(box!.height, 'one header row').toBeLessThanOrEqual(64);
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    await expect(nav.getByRole('link', { name: 'Calendar' })).toBeHidden();
    const menu = page.getByRole('button', { name: /^Menu/ });
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await menu.focus();
    await page.keyboard.press('Enter');
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    await expect(nav.getByRole('link', { name: 'Calendar' })).toBeVisible();
    await expectAccessible(page, 'phone menu open');
    await snap(page, info, '05-phone-menu');
    await docShot(page, 'dashboard-phone-menu');
    await nav.getByRole('link', { name: 'Calendar' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Calendar' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Calendar' })).toBeHidden();
  });
});
