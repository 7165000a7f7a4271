import { Temporal } from 'temporal-polyfill';

/**
 * An instant as the owner's wall clock shows it, with the offset in force then
 * (RFC 3339, e.g. 2027-01-12T14:00:00+01:00; seconds always, fractions only when present).
 * docs/api.md "Time zones".
 */
export function localIso(ms: number, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(timeZone).toString({ timeZoneName: 'never', offset: 'auto' });
}

export type LocalSpan = { start: string; end: string; start_local: string; end_local: string };

/** A [start, end) range in UTC (`Z`) with its owner-local twins. */
export function localSpan(start: number | Date, end: number | Date, timeZone: string): LocalSpan {
  const s = typeof start === 'number' ? start : start.getTime();
  const e = typeof end === 'number' ? end : end.getTime();
  return { start: new Date(s).toISOString(), end: new Date(e).toISOString(), start_local: localIso(s, timeZone), end_local: localIso(e, timeZone) };
}
