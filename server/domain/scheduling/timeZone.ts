import { Temporal } from 'temporal-polyfill';

/** Lower-cased name -> IANA spelling; bounded by the number of zones tzdb knows. */
const spelled = new Map<string, string>();

/**
 * The IANA spelling of a time zone typed in any case: `utc` -> `UTC`,
 * `europe/berlin` -> `Europe/Berlin`. A link keeps its own name
 * (`asia/calcutta` -> `Asia/Calcutta`), so a valid name is never rewritten to
 * another one. Null for a name that is not an IANA zone (offsets such as
 * `+01:00` are not zones either).
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.length === 0 || name.length > 64) return null;
  const key = name.toLowerCase();
  const known = spelled.get(key);
  if (known !== undefined) return known;
  let id: string;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    id = Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(name).timeZoneId;
  } catch {
    return null;
  }
  spelled.set(key, id);
  return id;
}

/** A stored zone as answered: its IANA spelling (rows written before spelling was enforced may differ in case). */
export function timeZoneName(stored: string): string {
  return canonicalTimeZone(stored) ?? stored;
}
