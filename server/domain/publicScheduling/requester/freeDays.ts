import type { Executor } from '@/db/client';
import { invalidField } from '../../errors';
import { canonicalTimeZone, civilFromDays, compatibleInstant, daysFromCivil, localDay } from '../../scheduling';
import { acceptableSlots, type PublicTypeContext } from './schedule';
import { loadHosts } from './hosts';

const DAY = 86_400_000;
/** How far ahead the month view offers times (docs/public-scheduling.md "Month view"). */
const MONTH_VIEW_DAYS = 90;
/** Every start of a month at the finest public step (15 minutes): 31 days and a long DST day. */
const MONTH_MAX_SLOTS = 32 * 96;

/** A month as YYYY-MM. */
type Month = string;
type FreeDay = { date: string; count: number; from: string; to: string };
export type FreeDaysView = { month: Month; first_month: Month; last_month: Month; days: FreeDay[] };

const pad = (n: number) => String(n).padStart(2, '0');
const dateOf = (epochDay: number) => {
  const c = civilFromDays(epochDay);
  return `${c.year}-${pad(c.month)}-${pad(c.day)}`;
};
const monthOf = (epochDay: number): Month => dateOf(epochDay).slice(0, 7);

/**
 * The month view's data (docs/public-scheduling.md "Month view"): for `month` (else the month of the
 * first free time) in the requester's
 * `timeZone`, each local day with free times, how many (the same times the suggestions offer), and
 * the day's bounds as instants (what the page asks the suggested times of a day with); plus the
 * months the view may show, from this one to the one `MONTH_VIEW_DAYS` ahead.
 */
export async function freeDays(
  db: Executor,
  ctx: PublicTypeContext,
  q: { durationMinutes?: number; month?: Month; timeZone: string },
  now: Date,
): Promise<FreeDaysView> {
  const durations = ctx.type.type.durationMinutes;
  const duration = q.durationMinutes ?? Math.min(...durations);
  if (!durations.includes(duration)) throw invalidField('duration_minutes', `must be one of ${durations.join(', ')}`);
  const zone = canonicalTimeZone(q.timeZone);
  if (!zone) throw invalidField('time_zone', 'must be an IANA time zone');
  const horizon = now.getTime() + MONTH_VIEW_DAYS * DAY;
  const first = monthOf(localDay(now.getTime(), zone));
  const last = monthOf(localDay(horizon, zone));
  const hosts = ctx.type.type.hostMode === 'single' ? null : await loadHosts(db, ctx.type, now);
  let shown = q.month;
  if (shown === undefined) {
    // No month asked: the one with the first free time (else this one).
    const [next] = await acceptableSlots(db, ctx, duration, { start: now, end: new Date(horizon) }, now, 1, { hosts });
    shown = next ? monthOf(localDay(next.start.getTime(), zone)) : first;
  }
  if (shown < first || shown > last) throw invalidField('month', `must be from ${first} to ${last}`);
  const range = { month: shown, first_month: first, last_month: last };

  const [year, month] = shown.split('-').map(Number);
  const day0 = daysFromCivil(year, month, 1);
  const dayN = month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1);
  const start = Math.max(compatibleInstant(zone, day0, 0), now.getTime());
  const end = Math.min(compatibleInstant(zone, dayN, 0), horizon);
  if (end <= start) return { ...range, days: [] };
  const slots = await acceptableSlots(db, ctx, duration, { start: new Date(start), end: new Date(end) }, now, MONTH_MAX_SLOTS, { hosts });
  const counts = new Map<number, number>();
  for (const s of slots) {
    const d = localDay(s.start.getTime(), zone);
    counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  const days = [...counts].map(([d, count]) => ({
    date: dateOf(d),
    count,
    from: new Date(compatibleInstant(zone, d, 0)).toISOString(),
    to: new Date(compatibleInstant(zone, d + 1, 0)).toISOString(),
  }));
  return { ...range, days };
}
