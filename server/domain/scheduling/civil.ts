/**
 * Proleptic-Gregorian calendar arithmetic on "epoch days" (days since 1970-01-01).
 *
 * This is pure *calendar* arithmetic (which date follows which, what weekday a date is). It never
 * touches UTC offsets: converting a local date-time to an instant is always done by Temporal in
 * localTime.ts / rrule.ts.
 */

/** Days since 1970-01-01 for a civil date (month 1-12). Howard Hinnant's days_from_civil. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(epochDay: number): { year: number; month: number; day: number } {
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** ISO weekday index 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday). */
export function weekdayIndex(epochDay: number): number {
  return (((epochDay + 3) % 7) + 7) % 7;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Parses "HH:MM" to minutes after local midnight; "24:00" (= 1440) only when allow24. */
export function parseLocalTime(value: string, allow24 = false): number {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  if (allow24 && value === '24:00') return 1440;
  throw new RangeError(`invalid local time "${value}" (expected HH:MM${allow24 ? ' or 24:00' : ''})`);
}
