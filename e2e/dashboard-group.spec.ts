import { expect, test } from './test';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap, TZ, docShot } from './dashboard';
import { usesPostgres } from './servers';

/**
 * Issue 25 item 6 and "cancel cancels all" (docs/groups.md, docs/dashboard.md "Calendar"): a
 * group booking made over the API for two owners shows its co-host on the owner's week and in
 * the details; the owner cancels it with a reason and both members end cancelled.
 */
test.describe('issue 25 item 6: a group booking on the owner’s dashboard', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(120_000);

  test('the week and the details name the co-host; cancelling cancels every host’s copy', async ({ page }, info) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const owner = await dashboardOwner(page.request, 'group');
    const lee = `lee-${Date.now()}@e2e.example`;
    await owner.api('POST', '/v1/owners', { email: lee, name: 'Lee Chen', time_zone: TZ });
    const days = ['mon', 'tue', 'wed', 'thu', 'fri'];
    await owner.api('PUT', '/v1/schedule-rules', { owner_email: lee, working_hours: Object.fromEntries(days.map((d) => [d, [{ start: '09:00', end: '17:00' }]])), hard_blocks: [] });
    const group = await owner.api('POST', '/v1/bookings', {
      owner_emails: [owner.email, lee],
      meeting_class: 'internal',
      start: berlin(2, '10:00'),
      end: berlin(2, '11:00'),
      title: 'Roadmap pairing',
      attendees: [{ email: 'kim@e2e.example', name: 'Kim' }],
    });
    const leeMember = group.members.find((m: { owner_email: string }) => m.owner_email === lee);
    expect(leeMember).toBeTruthy();

    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(group.start)}`);
    const week = page.getByRole('region', { name: /Week of/ });
    // The block says it is a group meeting and with whom (its accessible name and a visible line).
    const block = week.getByRole('link', { name: /^Roadmap pairing\s*, 10:00–11:00 · internal\s*, group meeting\s+with Lee Chen$/ });
    await expect(block).toBeVisible();
    await expect(block).toContainText('with Lee Chen');
    await expectAccessible(page, 'week with a group booking');
    await snap(page, info, '01-week-group');
    await docShot(page, 'dashboard-group-week');

    // Keyboard: the block is a link like any other; Enter opens the details.
    await block.focus();
    await page.keyboard.press('Enter');
    const details = page.getByRole('dialog', { name: 'Roadmap pairing' });
    await expect(details).toBeVisible();
    await expect(details).toContainText('Group meeting: you and 1 other host');
    const hosts = details.getByRole('list', { name: 'Other hosts' });
    await expect(hosts.getByRole('listitem')).toHaveCount(1);
    await expect(hosts).toContainText(`Lee Chen <${lee}>`);
    await expect(hosts).toContainText('confirmed');
    await expectAccessible(page, 'group booking details');
    await snap(page, info, '02-details-group');

    // Cancel: the dialog says every host's copy goes, naming them; a reason is required.
    await details.getByRole('button', { name: 'Cancel booking' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel “Roadmap pairing” for every host?' });
    await expect(ask).toContainText('it is cancelled for every host, you and Lee Chen');
    await ask.getByRole('button', { name: 'Cancel for every host' }).click();
    await expect(ask.getByText('Say why, so the attendees know')).toBeVisible();
    await ask.getByLabel('Reason').fill('Lee is on leave that week');
    await expectAccessible(page, 'group cancel dialog');
    await snap(page, info, '03-cancel-group');
    await docShot(page, 'dashboard-group-cancel');
    await ask.getByRole('button', { name: 'Cancel for every host' }).click();
    await expect(ask).toBeHidden();
    await expect(page.getByTestId('booking-history')).toContainText('Cancelled by you: Lee is on leave that week');
    await expect(page.getByRole('list', { name: 'Other hosts' })).toContainText('cancelled');

    // Both members are cancelled, over the API too.
    const read = await owner.api('GET', `/v1/bookings/${group.booking_id}`);
    expect(read.members.map((m: { owner_email: string; status: string }) => [m.owner_email, m.status]).sort()).toEqual(
      [
        [owner.email, 'cancelled'],
        [lee, 'cancelled'],
      ].sort(),
    );
    const leeCopy = await owner.api('GET', `/v1/bookings/${leeMember.booking_id}`);
    expect(leeCopy).toMatchObject({ status: 'cancelled', group_id: group.group_id });
    await snap(page, info, '04-cancelled-group');

    // On a phone: the page does not scroll sideways, the details and their hosts still read.
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(group.start)}&booking=${group.booking_id}`);
    await expect(page.getByRole('dialog', { name: 'Roadmap pairing' }).getByRole('list', { name: 'Other hosts' })).toContainText('Lee Chen');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'group details on a phone');
    await snap(page, info, '05-details-phone');
  });
});
