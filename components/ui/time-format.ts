/**
 * The one time-format module (docs/dashboard.md "Dates and times"): every
 * date or time a page writes is written here, and the lint rule
 * `local/no-raw-datetime-formatting` keeps raw formatting (toLocale*,
 * Intl.DateTimeFormat) out of components/ and app/ elsewhere.
 *
 * Two audiences, distinct names:
 * - the dashboard writes one style for every owner, in a zone the page knows
 *   (the owner's, a week's), the same on the server and in the browser:
 *   `formatWeekday` "Tue 25 Nov", `formatClock` "10:00", `formatClockSpan`
 *   "10:00–11:00", `formatSlot` "Tue 25 Nov, 10:00–11:00", `formatDateTime`
 *   "25 Nov 2026, 10:00", `formatDayMonth` "25 Nov", `formatMoment`
 *   "28 Nov 2026, 23:32" (LocalTime's viewer-zone moments);
 * - the public pages write in the requester's own locale and zone, in the
 *   browser only: `formatLongDay` "Wednesday 2 December", `formatViewerClock`
 *   "2:30 PM" or "14:30", `formatViewerSlot`, `zoneName`; the month view's calendar dates
 *   (`formatMonthYear`, `formatDateLongDay`, `formatDayOfMonth`, `formatWeekdayName`).
 * Zone arithmetic the pages need (wall-clock minutes, a datetime-local value
 * and back) lives here too: it is Intl formatting underneath.
 */

/** The dashboard's one style: day before month, a 24-hour clock. */
const DASHBOARD_LOCALE = 'en-GB';

const cache = new Map<string, Intl.DateTimeFormat>();
function fmt(locale: string | undefined, timeZone: string | undefined, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${timeZone ?? ''}|${JSON.stringify(opts)}`;
  let f = cache.get(key);
  if (!f) cache.set(key, (f = new Intl.DateTimeFormat(locale, { timeZone, ...opts })));
  return f;
}
const dash = (timeZone: string | undefined, opts: Intl.DateTimeFormatOptions) => fmt(DASHBOARD_LOCALE, timeZone, opts);
const CLOCK = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;

// ---- Dashboard (owner's zone, one style) ----

/** "10:00" */
function formatClock(iso: string, timeZone: string): string {
  return dash(timeZone, CLOCK).format(new Date(iso));
}

/** "10:00–11:00" */
export function formatClockSpan(start: string, end: string, timeZone: string): string {
  return `${formatClock(start, timeZone)}–${formatClock(end, timeZone)}`;
}

/** "Tue 25 Nov" */
export function formatWeekday(iso: string, timeZone: string): string {
  return dash(timeZone, { weekday: 'short', day: 'numeric', month: 'short' }).format(new Date(iso));
}

/** "25 Nov" */
export function formatDayMonth(iso: string, timeZone: string): string {
  return dash(timeZone, { day: 'numeric', month: 'short' }).format(new Date(iso));
}

/** "Tue 25 Nov, 10:00–11:00" (the end's date is left out when it is the same day). */
export function formatSlot(start: string, end: string, timeZone: string): string {
  return `${formatWeekday(start, timeZone)}, ${formatClockSpan(start, end, timeZone)}`;
}

/** "25 Nov 2026, 10:00" */
export function formatDateTime(iso: string, timeZone: string): string {
  return dash(timeZone, { day: 'numeric', month: 'short', year: 'numeric', ...CLOCK }).format(new Date(iso));
}

export type MomentPrecision = 'minute' | 'second';

/** "28 Nov 2026, 23:32" (or with seconds) in `timeZone`, the runtime's own zone when omitted (LocalTime in the browser). */
export function formatMoment(iso: string, precision: MomentPrecision = 'minute', timeZone?: string): string {
  return dash(timeZone, { dateStyle: 'medium', timeStyle: precision === 'second' ? 'medium' : 'short' }).format(new Date(iso));
}

// ---- Public pages (the requester's locale and zone, in the browser) ----
// `locale`: the page's language (next-intl's useLocale); omitted, the runtime's own.

/** "Wednesday 2 December" in the viewer's locale. */
export function formatLongDay(iso: string, timeZone: string, locale?: string): string {
  return fmt(locale, timeZone, { weekday: 'long', day: 'numeric', month: 'long' }).format(new Date(iso));
}

/** "Friday 4 December 2026" for a calendar date YYYY-MM-DD (a date, not an instant: no zone applies). */
export function formatCalendarDate(date: string, locale?: string): string {
  return fmt(locale, 'UTC', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(`${date}T12:00:00Z`));
}

/** The month view's words for calendar dates YYYY-MM-DD (no zone applies): "December 2026" for a month YYYY-MM. */
export function formatMonthYear(month: string, locale?: string): string {
  return fmt(locale, 'UTC', { month: 'long', year: 'numeric' }).format(new Date(`${month}-15T12:00:00Z`));
}

/** "Tuesday 1 December" for a calendar date. */
export function formatDateLongDay(date: string, locale?: string): string {
  return fmt(locale, 'UTC', { weekday: 'long', day: 'numeric', month: 'long' }).format(new Date(`${date}T12:00:00Z`));
}

/** "1", a calendar date's day of the month in the locale's digits. */
export function formatDayOfMonth(date: string, locale?: string): string {
  return fmt(locale, 'UTC', { day: 'numeric' }).format(new Date(`${date}T12:00:00Z`));
}

/** "Tue" or "Tuesday", a calendar date's weekday. */
export function formatWeekdayName(date: string, width: 'short' | 'long', locale?: string): string {
  return fmt(locale, 'UTC', { weekday: width }).format(new Date(`${date}T12:00:00Z`));
}

/** "2:30 PM" or "14:30", as the viewer's locale writes a time. */
export function formatViewerClock(iso: string, timeZone: string, locale?: string): string {
  return fmt(locale, timeZone, { hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
}

/** "Wednesday 2 December, 14:30 – 15:00" in the viewer's locale (each end written whole: "8:00 AM – 8:30 AM"). */
export function formatViewerSlot(start: string, end: string, timeZone: string, locale?: string): string {
  return `${formatLongDay(start, timeZone, locale)}, ${formatViewerClock(start, timeZone, locale)} – ${formatViewerClock(end, timeZone, locale)}`;
}

/** The zone's name as people read it, e.g. "India Standard Time" (falls back to the IANA name). */
export function zoneName(timeZone: string, at = new Date(), locale?: string): string {
  const part = fmt(locale, timeZone, { timeZoneName: 'long' }).formatToParts(at).find((p) => p.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

/** "9:00 AM" or "09:00": how this browser (or `locale`) writes a time of day, as its time inputs show it. */
export function timeExample(hour: number, minute: number, locale?: string): string {
  // A 24-hour clock shows two-digit hours in a time input (09:00); a 12-hour one does not (9:00 AM).
  const cycle = fmt(locale, undefined, { hour: 'numeric' }).resolvedOptions().hourCycle;
  const twentyFour = cycle === 'h23' || cycle === 'h24';
  return fmt(locale, undefined, { hour: twentyFour ? '2-digit' : 'numeric', minute: '2-digit' }).format(new Date(2000, 0, 3, hour, minute));
}

// ---- Zones ----

export function isTimeZone(tz: string): boolean {
  try {
    fmt('en', tz, {});
    return true;
  } catch {
    return false;
  }
}

/** The runtime's own zone (the browser's, in a browser). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Every zone the runtime knows, `current` included. */
export function timeZones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return all.includes(current) ? all : [current, ...all];
}

function wallParts(ms: number, timeZone: string): Record<string, string> {
  return Object.fromEntries(
    fmt('en-US', timeZone, { hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
}

/** "2026-11-30T10:00" for an instant in `timeZone` (a datetime-local input's value). */
export function wallTime(iso: string, timeZone: string): string {
  const p = wallParts(Date.parse(iso), timeZone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/** Minutes since the local midnight of `iso` in `timeZone` (wall clock). */
function localMinutes(iso: string, timeZone: string): number {
  const p = wallParts(Date.parse(iso), timeZone);
  return Number(p.hour) * 60 + Number(p.minute);
}

/** Minutes of `iso` counted from the start of the day that begins at `dayStartIso` (past midnight: > 1440). */
export function minutesIntoDay(iso: string, dayStartIso: string, timeZone: string): number {
  const elapsedMs = Date.parse(iso) - Date.parse(dayStartIso);
  if (elapsedMs <= 0) return 0;
  if (elapsedMs >= 86_400_000) return Math.round(elapsedMs / 60_000);
  const wall = localMinutes(iso, timeZone);
  return wall === 0 && elapsedMs > 0 ? 1440 : wall;
}

/**
 * Wall-clock minutes into one owner-local day [dayStart, dayEnd) for instants
 * (epoch ms), as minutesIntoDay counts them: 0 at or before the start, 1440 at
 * the end. A day of exactly 24 hours has no offset change, so its wall clock is
 * the elapsed time (no Intl call per event); a DST day (23 or 25 hours) asks Intl.
 */
export function dayClock(dayStartIso: string, dayEndIso: string, timeZone: string): (ms: number) => number {
  const start = Date.parse(dayStartIso);
  const end = Date.parse(dayEndIso);
  if (end - start !== 86_400_000) return (ms) => minutesIntoDay(new Date(ms).toISOString(), dayStartIso, timeZone);
  return (ms) => (ms <= start ? 0 : ms >= end ? 1440 : Math.floor((ms - start) / 60_000));
}

/** The offset of `timeZone` from UTC at instant `ms`, in ms (Intl only: no time zone library in the browser). */
function zoneOffsetMs(ms: number, timeZone: string): number {
  const p = wallParts(ms, timeZone);
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * A wall time in `timeZone` ("2026-11-30T10:00", as a datetime-local input
 * gives it) as a UTC ISO instant, or null when it is not a date-time. A time
 * skipped by a DST change lands just after the gap; a repeated one on its
 * first occurrence.
 */
export function zonedWallTimeToIso(local: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  let guess = wall - zoneOffsetMs(wall, timeZone);
  guess = wall - zoneOffsetMs(guess, timeZone);
  return new Date(guess).toISOString();
}
