import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, test, type Browser, type Page } from './test';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap, type DashboardOwner } from './dashboard';
import { waitForMail } from './mailbox';
import { verificationMail } from './publicFixtures';
import { databaseUrl, PROJECT_ROOT, usesPostgres } from './servers';

const run = promisify(execFile);

/**
 * Issue 25 item 5 (docs/public-scheduling.md "Several hosts"): a collective public meeting
 * type with two hosts. The requester sees one set of times (only those both hosts can take),
 * books one and confirms their email; the request waits in both hosts' inboxes; one host
 * approves on the dashboard, which books both hosts in one group; the other host gets a note,
 * and both see the meeting on their week view.
 */
test.describe('collective public meeting type', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the hosts\' passwords on the database the server uses');
  test.setTimeout(180_000);

  /** A second host of the same customer (Berlin, Mon-Fri 09:00-17:00) who may sign in. */
  async function secondHost(a: DashboardOwner): Promise<DashboardOwner> {
    const email = `host-b-${randomBytes(4).toString('hex')}@e2e.example`;
    await a.api('POST', '/v1/owners', { email, name: 'Bo Second', time_zone: 'Europe/Berlin' });
    const days = ['mon', 'tue', 'wed', 'thu', 'fri'];
    await a.api('PUT', '/v1/schedule-rules', { owner_email: email, working_hours: Object.fromEntries(days.map((d) => [d, [{ start: '09:00', end: '17:00' }]])), hard_blocks: [] });
    const password = `pw-${randomBytes(9).toString('base64url')}`;
    await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', email, '--password', password], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
      timeout: 90_000,
    });
    return { ...a, email, password };
  }

  async function signedIn(browser: Browser, owner: DashboardOwner): Promise<Page> {
    const context = await browser.newContext({ baseURL: owner.base, timezoneId: 'Europe/Berlin', locale: 'en-GB' });
    const page = await context.newPage();
    await signInWithPassword(page, owner);
    return page;
  }

  test('the requester books one time for both hosts; one host approves; both see it on their week', async ({ page, browser }, info) => {
    const a = await dashboardOwner(page.request, 'collective');
    const b = await secondHost(a);
    const suffix = randomBytes(4).toString('hex');
    const alias = `panel-${suffix}`;
    const link = await a.api('POST', '/v1/public-scheduling/links', { owner_email: a.email, alias, title: 'Meet our panel' });
    const type = await a.api('POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, {
      slug: 'panel',
      title: 'Panel interview',
      duration_minutes: [30],
      meeting_class: 'external',
      host_mode: 'collective',
      host_emails: [a.email, b.email],
    });
    expect(type).toMatchObject({ host_mode: 'collective', host_emails: [a.email, b.email] });
    // B is busy on Tuesday next week from 09:00 to 11:00 (A's lunch block and working hours also count).
    await a.api('POST', '/v1/bookings', { owner_email: b.email, meeting_class: 'internal', start: berlin(2, '09:00'), end: berlin(2, '11:00'), title: 'Team offsite' });
    const suggested = await (await page.request.get(`${a.base}/public/schedules/${alias}/meeting-types/panel/suggested-times?duration_minutes=30&from=${encodeURIComponent(berlin(2, '08:00'))}&to=${encodeURIComponent(berlin(2, '18:00'))}`)).json();
    expect(suggested.suggested_times[0].start).toBe(berlin(2, '11:00'));

    // The requester, in New York, on the type's page: one list of times.
    const requester = await browser.newContext({ baseURL: a.base, timezoneId: 'America/New_York', locale: 'en-US' });
    const rq = await requester.newPage();
    await rq.goto(`/${alias}/panel`);
    await expect(rq.getByRole('heading', { level: 1 })).toHaveText('Panel interview');
    await expect(rq.getByText('With Erin Example and Bo Second')).toBeVisible();
    await expect(rq.getByText(/one of them then accepts or declines your request for all of them/)).toBeVisible();
    const first = rq.locator('button[data-start]').first();
    await expect(first).toBeVisible();
    const start = (await first.getAttribute('data-start'))!;
    await expectAccessible(rq, 'collective type page');
    await snap(rq, info, '25-05-01-collective-type-page');
    await first.click();
    const email = `rita-${suffix}@e2e.example`;
    await rq.getByLabel('Your name').fill('Rita Requester');
    await rq.getByLabel('Your email').fill(email);
    await rq.getByRole('button', { name: 'Send request' }).click();
    await expect(rq.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    const mail = await verificationMail(email);
    await rq.goto(mail.verify);
    await rq.getByRole('button', { name: 'Confirm' }).click();
    await expect(rq.getByText('your email is confirmed')).toBeVisible();
    await snap(rq, info, '25-05-02-confirmed');

    // Both hosts are told; B approves from the dashboard.
    await waitForMail(a.email, { subject: /New meeting request/ });
    await waitForMail(b.email, { subject: /New meeting request/ });
    const pb = await signedIn(browser, b);
    await pb.getByRole('link', { name: /Review on your week\s*: Panel interview with Rita Requester/ }).click();
    await expect(pb.getByRole('heading', { level: 1, name: /Panel interview with Rita Requester/ })).toBeVisible();
    await expect(pb.getByTestId('proposal-hosts')).toContainText('Erin Example, Bo Second');
    await expectAccessible(pb, 'review of a collective request');
    await snap(pb, info, '25-05-03-review');
    await pb.getByRole('button', { name: 'Approve' }).click();
    await expect(pb.getByTestId('review-outcome')).toContainText('Approved and booked');
    await snap(pb, info, '25-05-04-approved');

    // A hears that B approved; the requester is accepted.
    const note = await waitForMail(a.email, { subject: /Booked with you/ });
    expect(note.text).toContain('(Europe/Berlin)');
    await waitForMail(email, { subject: /accepted/ });

    // Both hosts see it on their week.
    const pa = await signedIn(browser, a);
    for (const [who, p] of [['a', pa], ['b', pb]] as const) {
      await p.goto(`/dashboard/calendar?week=${berlinDate(start)}`);
      const week = p.getByRole('region', { name: /Week of/ });
      await expect(week.getByRole('link', { name: /Panel interview with Rita Requester/ })).toBeVisible();
      await expectAccessible(p, `week view of host ${who}`);
      await snap(p, info, `25-05-05-week-${who}`);
    }
    await requester.close();
  });
});
