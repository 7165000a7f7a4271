import { beforeAll, describe, expect, it } from 'vitest';
import { getDb, type Db } from '@/server/db';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer } from '../../helpers/app';
import { freshIp, meetingType, publicOwner, type PublicSetup } from './fixtures';

/**
 * The month view's procedure, requester.freeDays (docs/public-scheduling.md "Month view"): a
 * month's days with free times in the requester's zone, counted as the suggestions offer them.
 */
let db: Db;
let s: PublicSetup;
beforeAll(async () => {
  db = await getDb();
  s = await publicOwner(await newCustomer(), { name: 'Month Owner' });
  await meetingType(s, { slug: 'intro', title: 'Intro call', duration_minutes: [30, 60] });
});

function requester() {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test' });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  return createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db, now: () => new Date() }).requester;
}
const cause = (code: string) => ({ cause: { code } });
const TZ = 'Asia/Tokyo';

describe('requester.freeDays', () => {
  it("without a month: the first free time's month, each day counted as its suggested times", async () => {
    const r = requester();
    const view = await r.freeDays({ link: s.alias, slug: 'intro', time_zone: TZ });
    const { suggested_times } = await r.suggestedTimes({ link: s.alias, slug: 'intro' });
    const firstDate = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date(suggested_times[0].start));
    expect(view.month).toBe(firstDate.slice(0, 7));
    expect(view.first_month <= view.month && view.month <= view.last_month).toBe(true);
    expect(view.days[0].date).toBe(firstDate);
    // Weekdays only (the owner works Monday to Friday), in order, inside the month.
    expect(view.days.map((d) => d.date)).toEqual([...view.days.map((d) => d.date)].sort());
    for (const d of view.days) {
      expect(d.date.startsWith(view.month)).toBe(true);
      expect(new Date(d.to).getTime() - new Date(d.from).getTime()).toBe(86_400_000); // Tokyo has no DST
    }
    for (const d of view.days.slice(0, 3)) {
      const day = await r.suggestedTimes({ link: s.alias, slug: 'intro', from: d.from, to: d.to });
      expect(day.suggested_times).toHaveLength(d.count);
    }
  });

  it('answers the next month, and refuses a month outside the range, an unknown zone or length', async () => {
    const r = requester();
    const { first_month, last_month } = await r.freeDays({ link: s.alias, slug: 'intro', time_zone: TZ, duration_minutes: 60 });
    const [y, m] = first_month.split('-').map(Number);
    const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
    const later = await r.freeDays({ link: s.alias, slug: 'intro', time_zone: TZ, month: next, duration_minutes: 60 });
    expect(later.month).toBe(next);
    expect(later.days.length).toBeGreaterThan(15);
    expect(later.days.every((d) => d.date.startsWith(next) && d.count > 0)).toBe(true);
    expect(last_month > first_month).toBe(true);
    await expect(r.freeDays({ link: s.alias, slug: 'intro', time_zone: TZ, month: '2020-01' })).rejects.toMatchObject(cause('invalid_request'));
    await expect(r.freeDays({ link: s.alias, slug: 'intro', time_zone: 'Mars/Olympus' })).rejects.toMatchObject(cause('invalid_request'));
    await expect(r.freeDays({ link: s.alias, slug: 'intro', time_zone: TZ, duration_minutes: 45 })).rejects.toMatchObject(cause('invalid_request'));
    await expect(r.freeDays({ link: s.alias, slug: 'nope', time_zone: TZ })).rejects.toMatchObject(cause('not_found'));
  });
});
