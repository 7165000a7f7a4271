import { expect, test } from './test';
import { startRadicale, type TestRadicale } from '../tests/helpers/radicale';
import { berlin, dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';
import { usesPostgres } from './servers';

/**
 * Journey: an owner connects a CalDAV calendar on a real Radicale started by
 * the test, sees it with its status and last sync, turns "check for
 * conflicts" off and on, loses access when the CalDAV password changes
 * (the servers sync every 5 s in e2e), reconnects with the new password and
 * disconnects. Google and Microsoft have no OAuth client in e2e: the page
 * says so. RADICALE_PORTS picks the port range.
 */
test.describe('journey: connected calendars', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  let radicale: TestRadicale;
  test.beforeAll(async () => {
    radicale = await startRadicale('erin', 'first-app-password');
  });
  test.afterAll(async () => {
    await radicale?.stop();
  });

  test('connect CalDAV, check for conflicts, reconnect after a password change, disconnect', async ({ page }, info) => {
    test.setTimeout(120_000);
    const owner = await dashboardOwner(page.request, 'connections');
    // An event made directly on the CalDAV server: busy time once connected.
    const start = berlin(2, '14:00');
    const end = berlin(2, '15:00');
    const stamp = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    await radicale.putEvent('dentist.ics', `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//EN\r\nBEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${stamp(start)}\r\nDTEND:${stamp(end)}\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`);

    await signInWithPassword(page, owner);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Connections' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Connected calendars' })).toBeVisible();
    const list = page.getByRole('list', { name: 'Calendars' });
    await expect(list.getByRole('group')).toHaveCount(1);
    await expect(list.getByRole('group', { name: 'Internal', exact: true })).toContainText('Primary');
    await expect(page.getByTestId('google-not-configured')).toContainText('no Google Calendar OAuth client configured');
    await expect(page.getByTestId('microsoft-not-configured')).toBeVisible();
    await expect(page.getByRole('link', { name: /Connect Google/ })).toHaveCount(0);
    await expectAccessible(page, 'connections page');
    await snap(page, info, '01-connections-empty');

    // Step 1: the account. A wrong password is refused inline.
    await page.getByLabel('Server URL').fill(radicale.url);
    await page.getByLabel('User name').fill(radicale.user);
    await page.getByLabel('Password or app password').fill('not-the-password');
    await page.getByRole('button', { name: 'Find calendars' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not connect the CalDAV account' })).toBeVisible();
    await page.getByLabel('Password or app password').fill('first-app-password');
    await page.getByRole('button', { name: 'Find calendars' }).click();
    // Step 2: pick the calendar(s).
    const picks = page.getByRole('group', { name: `Calendars of ${radicale.user}` });
    await expect(picks.getByRole('checkbox', { name: 'Work' })).toBeChecked();
    await page.getByRole('checkbox', { name: /Make the first chosen calendar primary/ }).check();
    await expectAccessible(page, 'pick calendars');
    await snap(page, info, '02-pick-calendars');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(page.getByText('Connected Work.')).toBeVisible();

    const work = list.getByRole('group', { name: 'Work', exact: true });
    await expect(work).toContainText('CalDAV');
    await expect(work).toContainText('Primary');
    await expect(work).toContainText('Active');
    await expect(work).toContainText(/Last sync: \d{1,2} \w{3} \d{4}/);
    await expect(list.getByRole('group', { name: 'Internal', exact: true })).not.toContainText('Primary');
    await expectAccessible(page, 'connected calendar');
    await snap(page, info, '03-connected');
    const book = () => page.request.post(`${owner.base}/v1/bookings`, {
      headers: { Authorization: `Bearer ${owner.key}` },
      data: { owner_email: owner.email, meeting_class: 'external', start, end: berlin(2, '14:30'), title: 'Overlaps the dentist' },
    });
    expect((await (await book()).json()).error?.reason).toBe('SACRED_MEETING');

    // Check for conflicts off, then on again (stored: the REST list says so).
    const conflicts = work.getByRole('checkbox', { name: /Check for conflicts/ });
    await expect(conflicts).toBeChecked();
    await conflicts.uncheck();
    await expect(conflicts).not.toBeChecked();
    await expect.poll(async () => (await owner.api('GET', `/v1/calendars?owner_email=${encodeURIComponent(owner.email)}`)).calendars.find((c: { type: string }) => c.type === 'caldav').check_conflicts).toBe(false);
    await conflicts.check();
    await expect(conflicts).toBeChecked();
    await expect.poll(async () => (await owner.api('GET', `/v1/calendars?owner_email=${encodeURIComponent(owner.email)}`)).calendars.find((c: { type: string }) => c.type === 'caldav').check_conflicts).toBe(true);

    // The CalDAV password changes: the next background sync marks the calendar; requests fail closed.
    radicale.setPassword('second-app-password');
    await expect(async () => {
      await page.reload();
      await expect(work).toContainText('Reconnect needed', { timeout: 1_000 });
    }).toPass({ timeout: 40_000 });
    await expect(work.getByRole('alert')).toContainText('CALENDAR_REAUTH_REQUIRED');
    await expect(work.getByRole('alert')).toContainText('401');
    expect((await (await book()).json()).error?.code).toBe('CALENDAR_REAUTH_REQUIRED');
    await expectAccessible(page, 'reauth required');
    await snap(page, info, '04-reconnect-needed');

    await work.getByRole('button', { name: 'Reconnect Work' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reconnect Work' });
    await dialog.getByLabel('Password or app password').fill('first-app-password');
    await dialog.getByRole('button', { name: 'Reconnect' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Could not connect the CalDAV account');
    await dialog.getByLabel('Password or app password').fill('second-app-password');
    // The pointer still rests on the button clicked above (hover dims it): move it off before axe looks.
    await page.mouse.move(0, 0);
    await expectAccessible(page, 'reconnect dialog');
    await snap(page, info, '05-reconnect-dialog');
    await dialog.getByRole('button', { name: 'Reconnect' }).click();
    await expect(dialog).toBeHidden();
    await expect(work).toContainText('Active');
    await expect(work).not.toContainText('Reconnect needed');
    expect((await (await book()).json()).error?.reason).toBe('SACRED_MEETING');

    // Disconnect asks first.
    await work.getByRole('button', { name: 'Disconnect Work' }).click();
    const confirm = page.getByRole('dialog', { name: 'Disconnect Work?' });
    await expect(confirm).toContainText('synced events are deleted');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(work).toContainText('Active');
    await work.getByRole('button', { name: 'Disconnect Work' }).click();
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await expect(work).toContainText('Disconnected');
    await expect(work.getByRole('checkbox')).toHaveCount(0);
    await snap(page, info, '06-disconnected');

    // On a phone the page keeps to the screen width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await snap(page, info, '07-phone');
  });
});
