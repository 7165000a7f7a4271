import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from './test';
import postgres from 'postgres';
import { Temporal } from 'temporal-polyfill';
import { dashboardOwner, expectAccessible, signInWithPassword, snap, TZ } from './dashboard';
import { databaseUrl, usesPostgres } from './servers';

/**
 * Issue 39, items 1 and 2 (docs/arbitration.md "Buffers", "Date overrides", "Out of office";
 * docs/dashboard.md "My schedule"): the owner marks a day off, a day with other hours and a day
 * away on the schedule page and sees them in the week preview, keeps time free around a meeting
 * type's meetings in its dialog, and the type's public page then offers exactly the times those
 * rules leave: none on the day off or the day away, the other hours on the changed day, none
 * within a buffer of a booked meeting. Desktop and phone, axe on every page touched.
 */
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** The first four weekdays from tomorrow (Berlin): all inside the schedule page's seven-day preview. */
function weekdaysAhead(): Temporal.PlainDate[] {
  const out: Temporal.PlainDate[] = [];
  for (let d = Temporal.Now.plainDateISO(TZ).add({ days: 1 }); out.length < 4; d = d.add({ days: 1 })) if (d.dayOfWeek <= 5) out.push(d);
  return out;
}
const at = (d: Temporal.PlainDate, hhmm: string) => new Date(d.toZonedDateTime({ timeZone: TZ, plainTime: Temporal.PlainTime.from(hhmm) }).epochMilliseconds).toISOString();
const WEEKDAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** The offered start times, as Berlin `date -> [HH:MM]`. */
function byDay(starts: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of starts) {
    const z = Temporal.Instant.from(s).toZonedDateTimeISO(TZ);
    const key = z.toPlainDate().toString();
    out.set(key, [...(out.get(key) ?? []), z.toPlainTime().toString({ smallestUnit: 'minute' })]);
  }
  return out;
}

/**
 * The times the public page offers on `date` (Berlin `HH:MM`), or undefined when its month view
 * marks the day as having none (docs/public-scheduling.md "Month view"): the month shown is turned
 * to the date's, the day picked, and its times read once they are that day's.
 */
async function dayTimes(page: Page, date: Temporal.PlainDate): Promise<string[] | undefined> {
  const grid = page.getByRole('grid');
  const cell = page.locator(`button[data-date="${date}"]`);
  for (let turns = 0; turns < 3 && !(await cell.count()); turns++) {
    await expect(grid).toHaveAttribute('aria-busy', 'false');
    const first = (await page.locator('button[data-date]').first().getAttribute('data-date'))!;
    await page.getByRole('button', { name: date.toString() < first ? 'Previous month' : 'Next month' }).click();
  }
  await expect(cell).toBeVisible();
  await expect(grid).toHaveAttribute('aria-busy', 'false');
  if ((await cell.getAttribute('data-free')) === null) return undefined;
  await cell.click();
  await expect(page.locator('[role="gridcell"][aria-selected="true"] button')).toHaveAttribute('data-date', date.toString());
  const read = async () => byDay(await page.locator('button[data-start]').evaluateAll((els) => els.map((e) => e.getAttribute('data-start')!))).get(date.toString());
  await expect.poll(read).toBeDefined();
  return read();
}

test.describe('issue 39: buffers, date overrides and out of office, from the dashboard to the public page', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses, and the owner is made admin');
  test.setTimeout(240_000);
  test.use({ locale: 'en-GB' });

  test('the owner sets a day off, other hours, a day away and a type\'s buffers; the public page offers exactly what is left', async ({ page, browser }, info) => {
    await page.setViewportSize(DESKTOP);
    const owner = await dashboardOwner(page.request, 'bufov');
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update owners set role = 'admin' where email = ${owner.email}`;
    await sql.end();
    const [off, away, other, plain] = weekdaysAhead();
    const alias = `e2e-bo-${randomBytes(4).toString('hex')}`;
    const link = await owner.api('POST', '/v1/public-scheduling/links', { owner_email: owner.email, alias, title: 'Book time with Erin' });
    await owner.api('POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug: 'intro', title: 'Intro call', duration_minutes: [30], meeting_class: 'external' });
    // Meetings of the type's own priority (not preemptable by it): 15:00-15:30 on the changed day, 10:00-11:00 on a plain one.
    await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: at(other, '15:00'), end: at(other, '15:30'), title: 'Client call' });
    await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: at(plain, '10:00'), end: at(plain, '11:00'), title: 'Review' });

    // The schedule page: a day off, a day with 14:00-16:00, a day away.
    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/schedule`);
    await expect(page.getByRole('heading', { level: 1, name: 'My schedule' })).toBeVisible();
    const addOverride = page.getByRole('button', { name: 'Date override', exact: true });
    await addOverride.click();
    await page.getByTestId('date-override-0').getByLabel('Date', { exact: true }).fill(off.toString());
    await expect(page.getByTestId('date-override-0').getByRole('checkbox', { name: 'Day off' })).toBeChecked();
    await addOverride.click();
    const second = page.getByTestId('date-override-1');
    await second.getByLabel('Date', { exact: true }).fill(other.toString());
    await second.getByRole('checkbox', { name: 'Day off' }).uncheck();
    await page.getByLabel('Override 2 range 1 start').fill('14:00');
    await page.getByLabel('Override 2 range 1 end').fill('16:00');
    await page.getByRole('button', { name: 'Time away', exact: true }).click();
    const trip = page.getByTestId('out-of-office-0');
    await trip.getByLabel('First day').fill(away.toString());
    await trip.getByLabel('Last day').fill(away.toString());
    await trip.getByLabel('Note (optional)').fill('Conference');

    // The week preview shows them before saving.
    const preview = page.getByTestId('week-preview');
    const row = (d: Temporal.PlainDate) => preview.getByTestId(`preview-${WEEKDAY[d.dayOfWeek - 1]}`);
    await expect(row(off)).toContainText('Day off (date override)');
    await expect(row(away)).toContainText('Out of office');
    await expect(row(other)).toContainText('Working 14:00-16:00 (date override)');
    await expect(row(plain)).toContainText('Working 09:00-17:00');
    await expect(row(plain)).not.toContainText('date override');
    await snap(page, info, '01-schedule-overrides-preview');
    await expectAccessible(page, 'schedule with overrides and time away');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await expect(page.getByText('Saved.')).toBeVisible();
    const rules = await owner.api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(owner.email)}`);
    expect(rules.date_overrides).toEqual([
      { date: off.toString(), working_hours: [] },
      { date: other.toString(), working_hours: [{ start: '14:00', end: '16:00' }] },
    ].sort((a, b) => a.date.localeCompare(b.date)));
    expect(rules.out_of_office).toEqual([{ start: away.toString(), end: away.toString(), note: 'Conference' }]);
    // After a reload the page shows what was saved; on a phone too.
    await page.setViewportSize(PHONE);
    await page.reload();
    await expect(page.getByTestId('out-of-office-0').getByLabel('Note (optional)')).toHaveValue('Conference');
    await expect(row(other)).toContainText('Working 14:00-16:00 (date override)');
    await snap(page, info, '02-schedule-phone');
    await expectAccessible(page, 'schedule with overrides and time away (phone)');

    // Without buffers the changed day offers 14:00, 14:30 and 15:30 (next to the 15:00 meeting).
    const suggested = async (d: Temporal.PlainDate) => {
      const res = await page.request.get(`${owner.base}/public/schedules/${alias}/meeting-types/intro/suggested-times?from=${encodeURIComponent(at(d, '00:00'))}&to=${encodeURIComponent(at(d.add({ days: 1 }), '00:00'))}`);
      expect(res.status()).toBe(200);
      return byDay(((await res.json()) as { suggested_times: { start: string }[] }).suggested_times.map((s) => s.start)).get(d.toString()) ?? [];
    };
    expect(await suggested(other)).toEqual(['14:00', '14:30', '15:30']);
    expect(await suggested(plain)).toEqual(expect.arrayContaining(['09:00', '09:30', '11:00', '11:30']));

    // The type keeps 15 minutes free before and 10 after each meeting (its dialog).
    await page.setViewportSize(DESKTOP);
    await page.goto(`${owner.base}/dashboard/admin/public-scheduling`);
    await page.getByRole('button', { name: 'Edit Intro call' }).click();
    const dialog = page.getByRole('dialog', { name: `Edit Intro call on /${alias}` });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Free before (minutes)').fill('15');
    await dialog.getByLabel('Free after (minutes)').fill('10');
    await expectAccessible(page, 'meeting type dialog with buffers');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('list', { name: `Meeting types of ${alias}` })).toContainText('15/10 min kept free before/after');
    await page.setViewportSize(PHONE);
    await expectAccessible(page, 'public scheduling console (phone)');

    // The public page, desktop and phone: nothing on the day off or the day away, 14:00 alone on the
    // changed day (14:30 would end where the meeting begins, 15:30 start where it ends), and on the
    // plain day nothing within 10 minutes before or 15 after the 10:00-11:00 meeting.
    for (const [name, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const requester = await browser.newContext({ viewport, timezoneId: TZ, locale: 'en-GB', baseURL: owner.base });
      const rp = await requester.newPage();
      await rp.goto(`/${alias}/intro`);
      expect(await dayTimes(rp, off), 'day off').toBeUndefined();
      expect(await dayTimes(rp, away), 'day away').toBeUndefined();
      expect(await dayTimes(rp, other), 'changed day').toEqual(['14:00']);
      const plainTimes = (await dayTimes(rp, plain)) ?? [];
      expect(plainTimes).toEqual(expect.arrayContaining(['09:00', '11:30', '13:00']));
      for (const t of ['09:30', '10:00', '10:30', '11:00']) expect(plainTimes, `plain day ${t}`).not.toContain(t);
      await snap(rp, info, `03-public-times-${name}`);
      await expectAccessible(rp, `public meeting type page (${name})`);
      await requester.close();
    }
  });
});
