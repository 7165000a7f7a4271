/**
 * The month view's calendar arithmetic (docs/public-scheduling.md "Month view"), pure: dates are
 * calendar dates YYYY-MM-DD and months YYYY-MM, with no time zone (the server says which dates of
 * the requester's zone have free times).
 */

const pad = (n: number) => String(n).padStart(2, '0');
const toDate = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
const parse = (date: string) => new Date(`${date}T00:00:00Z`);

/** The date `n` days after `date` (before when negative). */
function addDays(date: string, n: number): string {
  const d = parse(date);
  d.setUTCDate(d.getUTCDate() + n);
  return toDate(d);
}

/** The day of the week, 1 Monday to 7 Sunday (ISO 8601, as Intl.Locale weekInfo counts). */
function isoWeekday(date: string): number {
  return parse(date).getUTCDay() || 7;
}

/** The month `n` months after `month`. */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number);
  const i = y * 12 + (m - 1) + n;
  return `${Math.floor(i / 12)}-${pad((i % 12) + 1)}`;
}

function daysIn(month: string): number {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The first day of the week where `locale` is spoken (1 Monday .. 7 Sunday): Intl.Locale weekInfo, else Monday. */
export function weekStart(locale: string): number {
  try {
    const l = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const first = l.getWeekInfo?.().firstDay ?? l.weekInfo?.firstDay;
    return first && first >= 1 && first <= 7 ? first : 1;
  } catch {
    return 1;
  }
}

/** The week `date` falls in, as the date of its first day (weeks starting on `firstDay`). */
function weekOf(date: string, firstDay: number): string {
  return addDays(date, -((isoWeekday(date) - firstDay + 7) % 7));
}

/** The rows of `month`'s calendar: weeks of seven, each day its date or null outside the month. */
export function monthWeeks(month: string, firstDay: number): (string | null)[][] {
  const first = `${month}-01`;
  const last = `${month}-${pad(daysIn(month))}`;
  const weeks: (string | null)[][] = [];
  for (let start = weekOf(first, firstDay); start <= last; start = addDays(start, 7)) {
    weeks.push(Array.from({ length: 7 }, (_, i) => addDays(start, i)).map((d) => (d.startsWith(month) ? d : null)));
  }
  return weeks;
}

/** The seven weekdays' dates of one week starting on `firstDay` (for the column headers' names). */
export function weekdayDates(firstDay: number): string[] {
  // 2024-01-01 was a Monday.
  return Array.from({ length: 7 }, (_, i) => addDays('2024-01-01', (firstDay - 1 + i) % 7));
}

/** The same day of the month `n` months on, on the month's last day when it has fewer. */
function shiftMonth(date: string, n: number): string {
  const month = addMonths(date.slice(0, 7), n);
  return `${month}-${pad(Math.min(Number(date.slice(8)), daysIn(month)))}`;
}

/**
 * Where a key moves the focus from `date` in the month grid, or null for a key the grid leaves
 * alone: the arrows by a day (mirrored right to left) or a week, Home and End to the week's first
 * and last day, PageUp and PageDown by a month.
 */
export function keyTarget(date: string, key: string, opts: { firstDay: number; rtl: boolean }): string | null {
  const forward = opts.rtl ? -1 : 1;
  switch (key) {
    case 'ArrowRight':
      return addDays(date, forward);
    case 'ArrowLeft':
      return addDays(date, -forward);
    case 'ArrowDown':
      return addDays(date, 7);
    case 'ArrowUp':
      return addDays(date, -7);
    case 'Home':
      return weekOf(date, opts.firstDay);
    case 'End':
      return addDays(weekOf(date, opts.firstDay), 6);
    case 'PageDown':
      return shiftMonth(date, 1);
    case 'PageUp':
      return shiftMonth(date, -1);
    default:
      return null;
  }
}

/** `date` kept inside the months `first`..`last` (the nearest day of the range). */
export function clampToMonths(date: string, first: string, last: string): string {
  if (date.slice(0, 7) < first) return `${first}-01`;
  if (date.slice(0, 7) > last) return `${last}-${pad(daysIn(last))}`;
  return date;
}
