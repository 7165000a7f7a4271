import { randomBytes } from 'node:crypto';
import { Temporal } from 'temporal-polyfill';
import { expect, test } from './test';
import { dashboardOwner, expectAccessible, TZ } from './dashboard';

/**
 * Issue 45 item 1 (docs/public-scheduling.md "Several hosts"): a pool whose second member has no
 * working hours. To agents that member is free around the clock; a public page leaves them out,
 * so the pool's meeting type offers only the hours of the member who has them (Mon-Fri
 * 09:00-17:00 Berlin, lunch 12:00-13:00 blocked), never a night or a weekend, on the page a
 * requester sees (its month view's days and the picked day's times) and in the public API.
 */
const PHONE = { width: 390, height: 844 };

/** Berlin wall time of an instant: weekday (1 = Monday) and minutes after midnight. */
function berlinWall(iso: string): { weekday: number; minutes: number } {
  const z = Temporal.Instant.from(iso).toZonedDateTimeISO(TZ);
  return { weekday: z.dayOfWeek, minutes: z.hour * 60 + z.minute };
}

/** Inside Mon-Fri 09:00-17:00 and outside lunch, for a 30-minute meeting starting then. */
function withinHours(iso: string): boolean {
  const { weekday, minutes } = berlinWall(iso);
  const lunch = minutes + 30 > 12 * 60 && minutes < 13 * 60;
  return weekday <= 5 && minutes >= 9 * 60 && minutes + 30 <= 17 * 60 && !lunch;
}

test('a pool with an owner who has no working hours offers no night and no weekend times', async ({ page, browser }) => {
  const owner = await dashboardOwner(page.request, 'poolhours');
  const suffix = randomBytes(4).toString('hex');
  // Created over REST without working hours: no restriction to agents, left out of public pages.
  const night = `night-${suffix}@e2e.example`;
  await owner.api('POST', '/v1/owners', { email: night, name: 'Nat Night', time_zone: TZ });
  const pool = await owner.api('POST', '/v1/pools', { name: `hours-${suffix}`, members: [{ owner_email: night, weight: 5 }, { owner_email: owner.email, weight: 1 }] });
  const alias = `e2e-ph-${suffix}`;
  const link = await owner.api('POST', '/v1/public-scheduling/links', { owner_email: owner.email, alias, title: 'Talk to the team' });
  await owner.api('POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug: 'team', title: 'Team call', duration_minutes: [30], meeting_class: 'external', host_mode: 'pool', pool: pool.name });

  // The public API: two weeks from tomorrow, every offered start is inside the hours of the member who has them.
  const from = new Date(Date.now() + 86_400_000).toISOString();
  const to = new Date(Date.now() + 15 * 86_400_000).toISOString();
  const res = await page.request.get(`${owner.base}/public/schedules/${alias}/meeting-types/team/suggested-times?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  expect(res.status(), await res.text()).toBe(200);
  const starts = ((await res.json()) as { suggested_times: { start: string }[] }).suggested_times.map((s) => s.start);
  expect(starts.length).toBeGreaterThan(0);
  expect(starts.filter((s) => !withinHours(s)), 'offered outside the working hours').toEqual([]);

  // The page a requester sees on a phone: no weekend day is marked as having times, and the picked day's times are working hours.
  const requester = await browser.newContext({ viewport: PHONE, timezoneId: TZ, locale: 'en-GB', baseURL: owner.base });
  const rp = await requester.newPage();
  await rp.goto(`/${alias}/team`);
  const grid = rp.getByRole('grid');
  await expect(grid.locator('button[data-free]').first()).toBeVisible();
  const freeDays = await grid.locator('button[data-free]').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')!));
  expect(freeDays.filter((d) => Temporal.PlainDate.from(d).dayOfWeek > 5), 'weekend days with times').toEqual([]);
  await expect(rp.locator('button[data-start]').first()).toBeVisible();
  const shown = await rp.locator('button[data-start]').evaluateAll((els) => els.map((e) => e.getAttribute('data-start')!));
  expect(shown.filter((s) => !withinHours(s)), 'times on the page outside the working hours').toEqual([]);
  await expectAccessible(rp, 'pool meeting type page');
  await requester.close();
});
