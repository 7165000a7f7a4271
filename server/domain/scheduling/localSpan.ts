import { utcOffsetAt } from './localTime';

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * An instant as the owner's wall clock shows it, with the offset in force then
 * (RFC 3339, e.g. 2027-01-12T14:00:00+01:00; seconds always, fractions only when present; the
 * offset rounded to whole minutes). The same text as Temporal's
 * `toZonedDateTimeISO(zone).toString({ timeZoneName: 'never', offset: 'auto' })`, computed from the
 * cached offset of the local day (tests/unit/scheduling/localSpan.test.ts compares the two).
 * docs/api.md "Time zones".
 */
export function localIso(ms: number, timeZone: string): string {
  const offset = utcOffsetAt(timeZone, ms);
  const wall = new Date(ms + offset).toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ (instants are 1970-2100)
  const fraction = wall.slice(20, 23).replace(/0+$/, '');
  const abs = Math.round(Math.abs(offset) / 60_000); // half away from zero, as Temporal rounds
  return `${wall.slice(0, 19)}${fraction ? `.${fraction}` : ''}${offset < 0 && abs > 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

export type LocalSpan = { start: string; end: string; start_local: string; end_local: string };

/** A [start, end) range in UTC (`Z`) with its owner-local twins. */
export function localSpan(start: number | Date, end: number | Date, timeZone: string): LocalSpan {
  const s = typeof start === 'number' ? start : start.getTime();
  const e = typeof end === 'number' ? end : end.getTime();
  return { start: new Date(s).toISOString(), end: new Date(e).toISOString(), start_local: localIso(s, timeZone), end_local: localIso(e, timeZone) };
}
