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
  // Node 24's Intl and Temporal take offsets (`+01:00`) as zones; they are not IANA names.
  if (/^[+\-\u2212]/.test(id)) return null;
  spelled.set(key, id);
  return id;
}

/** A stored zone as answered: its IANA spelling (rows written before spelling was enforced may differ in case). */
export function timeZoneName(stored: string): string {
  return canonicalTimeZone(stored) ?? stored;
}

let supported: readonly string[] | undefined;

/**
 * The IANA names this server accepts and offers (GET /v1/time-zones, docs/api.md "Time zones"):
 * the runtime's own list (Intl.supportedValuesOf, one canonical name per zone) plus `UTC`,
 * sorted. Each is accepted as typed; links (`Asia/Calcutta`) are accepted too without being listed.
 */
export function supportedTimeZones(): readonly string[] {
  supported ??= [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])].sort();
  return supported;
}

/** Edit distance (insert, delete, substitute one character), stopping early past `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length];
}

/**
 * Up to `limit` accepted names close to one that is not (INVALID_TIME_ZONE's `did_you_mean`):
 * by edit distance, ignoring case, spaces and underscores alike, over the whole name or its
 * city (`Berln` and `Europe/Berln` both find `Europe/Berlin`; `new york` finds
 * `America/New_York`), at most a quarter of the name's length away (at least 2; 1 for a name of
 * up to 4 characters); closest first.
 */
export function closeTimeZones(name: string, limit = 3): string[] {
  const fold = (s: string) => s.toLowerCase().replace(/[\s_]+/g, '_');
  const typed = fold(name.slice(0, 64));
  if (!typed) return [];
  const max = typed.length <= 4 ? 1 : Math.max(2, Math.floor(typed.length / 4));
  const scored: { zone: string; d: number }[] = [];
  for (const zone of supportedTimeZones()) {
    const full = fold(zone);
    const city = full.slice(full.lastIndexOf('/') + 1);
    const d = Math.min(distance(typed, full, max), typed.includes('/') ? max + 1 : distance(typed, city, max));
    if (d <= max) scored.push({ zone, d });
  }
  return scored
    .sort((x, y) => x.d - y.d || x.zone.localeCompare(y.zone))
    .slice(0, limit)
    .map((s) => s.zone);
}
