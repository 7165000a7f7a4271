/**
 * What one request or one owner rule may ask of the scheduling core (docs/reliability.md "Limits on
 * work per request"). Every bound here keeps the work of a decision proportional to the queried
 * window, and every instant the core computes (request +- margins, lookahead) a timestamp
 * PostgreSQL stores.
 */

/** Instants the service schedules, both ends included: 1970-01-01T00:00:00Z to 2100-01-01T00:00:00Z. */
export const EARLIEST_INSTANT = '1970-01-01T00:00:00Z';
export const LATEST_INSTANT = '2100-01-01T00:00:00Z';
const EARLIEST_INSTANT_MS = Date.parse(EARLIEST_INSTANT);
const LATEST_INSTANT_MS = Date.parse(LATEST_INSTANT);

export function isSupportedInstant(ms: number): boolean {
  return ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;
}

/** A hard block's DTSTART year lies in [MIN_DTSTART_YEAR, MAX_DTSTART_YEAR]. */
export const MIN_DTSTART_YEAR = 1900;
export const MAX_DTSTART_YEAR = 2099;
/** Largest COUNT of a hard-block RRULE. */
export const MAX_RRULE_COUNT = 10_000;
/** Most values in one BYDAY or BYMONTHDAY list. */
export const MAX_RRULE_BY_VALUES = 10;
/** Most hard blocks (weekly ranges and RRULEs together) of one owner. */
export const MAX_HARD_BLOCKS = 100;

/** The most a meeting's buffer before or after it may be, in minutes (docs/arbitration.md "Buffers"; the database CHECKs it too). */
export const MAX_BUFFER_MINUTES = 240;

/** Most date overrides of one owner (docs/arbitration.md "Date overrides"): a year of days. */
export const MAX_DATE_OVERRIDES = 366;

/** Most out-of-office ranges of one owner (docs/arbitration.md "Out of office"). */
export const MAX_OUT_OF_OFFICE = 100;
