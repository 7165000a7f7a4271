/** Display helpers for times in the owner's zone (formatting only; no scheduling rule lives here). */

const cache = new Map<string, Intl.DateTimeFormat>();
function fmt(timeZone: string, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = timeZone + JSON.stringify(opts);
  let f = cache.get(key);
  if (!f) cache.set(key, (f = new Intl.DateTimeFormat('en-GB', { timeZone, ...opts })));
  return f;
}

export function formatTime(iso: string, timeZone: string): string {
  return fmt(timeZone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

export function formatRange(start: string, end: string, timeZone: string): string {
  return `${formatTime(start, timeZone)}–${formatTime(end, timeZone)}`;
}

export function formatDay(iso: string, timeZone: string): string {
  return fmt(timeZone, { weekday: 'short', day: 'numeric', month: 'short' }).format(new Date(iso));
}

/** "Tue 25 Nov, 10:00–11:00" (the end's date is left out when it is the same day). */
export function formatSpan(start: string, end: string, timeZone: string): string {
  return `${formatDay(start, timeZone)}, ${formatRange(start, end, timeZone)}`;
}

export function formatDateTime(iso: string, timeZone: string): string {
  return fmt(timeZone, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

/** Minutes since the local midnight of `iso` in `timeZone` (wall clock). */
export function localMinutes(iso: string, timeZone: string): number {
  const parts = fmt(timeZone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso));
  const h = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const m = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return h * 60 + m;
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

export function formatHours(minutes: number): string {
  const h = minutes / 60;
  return Number.isInteger(h) ? `${h} h` : `${h.toFixed(1)} h`;
}

/** One of eight colour pairs (globals.css .mc-0 ... .mc-7) for a meeting class, stable by name. */
export function classColour(name: string | null): string {
  if (!name) return 'mc-6';
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `mc-${h % 8}`;
}

/** The offset of `timeZone` from UTC at instant `ms`, in ms (Intl only: no time zone library in the browser). */
function zoneOffsetMs(ms: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
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
