/**
 * A series' rule in plain words for the owner's dashboard (docs/dashboard.md "Recurring series"):
 * "Weekly on Wednesday, 6 times", "Every 2 weeks on Monday and Thursday, until 1 March 2027",
 * "Monthly on the last Friday, 12 times". The rule is the RRULE subset a series takes
 * (series.ts); what the rule leaves to its start (the weekday of a plain WEEKLY, the day of a
 * plain MONTHLY) is read off the first occurrence in the owner's zone. Pure: no clock, no database.
 */
import { Temporal } from 'temporal-polyfill';
import { civilFromDays } from './civil';
import { parseRRule, type ParsedRRule } from './rrule';

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const ORDINALS = ['', 'first', 'second', 'third', 'fourth', 'fifth'];

/** A BYDAY ordinal of a monthly rule: "first", "third", "last", "second to last". */
function ordinalWords(n: number): string {
  return n > 0 ? ORDINALS[n] : n === -1 ? 'last' : `${ORDINALS[-n]} to last`;
}

/** "Monday", "Monday and Thursday", "Monday, Wednesday and Friday". */
function listWords(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A BYMONTHDAY: "day 15", "the last day", "day 2 from the end". */
function monthDayWords(d: number): string {
  return d === -1 ? 'the last day' : d < 0 ? `day ${-d} from the end` : `day ${d}`;
}

/** "Daily", "Every 3 days", "Weekly", "Every 2 weeks", "Monthly", "Every 6 months". */
function periodWords(rule: ParsedRRule): string {
  const unit = { DAILY: ['Daily', 'day'], WEEKLY: ['Weekly', 'week'], MONTHLY: ['Monthly', 'month'] }[rule.freq];
  return rule.interval === 1 ? unit[0] : `Every ${rule.interval} ${unit[1]}s`;
}

/** " on Wednesday", " on the second Tuesday", " on day 15", or '' for a daily rule without BYDAY. */
function daysWords(rule: ParsedRRule, first: Temporal.ZonedDateTime): string {
  if (rule.freq === 'MONTHLY') {
    if (rule.byMonthDay) return ` on ${listWords(rule.byMonthDay.map(monthDayWords))}`;
    if (rule.byDay) return ` on ${listWords(rule.byDay.map((b) => `${b.ordinal ? `the ${ordinalWords(b.ordinal)} ` : 'every '}${WEEKDAYS[b.weekday]}`))}`;
    return ` on day ${first.day}`;
  }
  if (rule.byDay) return ` on ${listWords(rule.byDay.map((b) => WEEKDAYS[b.weekday]))}`;
  return rule.freq === 'WEEKLY' ? ` on ${WEEKDAYS[first.dayOfWeek - 1]}` : '';
}

/** ", 6 times", ", until 1 March 2027" (UNTIL's date in the owner's zone). */
function endWords(rule: ParsedRRule, timeZone: string): string {
  if (rule.count !== null) return rule.count === 1 ? ', once' : `, ${rule.count} times`;
  const until = rule.until;
  if (!until) return '';
  const { year, month, day } = until.kind === 'utc' ? Temporal.Instant.fromEpochMilliseconds(until.ms).toZonedDateTimeISO(timeZone) : civilFromDays(until.epochDay);
  return `, until ${day} ${MONTHS[month - 1]} ${year}`;
}

/** The rule in words, its first occurrence at `firstStart` (epoch ms) in `timeZone`; null for a rule outside the subset. */
export function recurrenceInWords(rrule: string, firstStart: number, timeZone: string): string | null {
  let rule: ParsedRRule;
  try {
    rule = parseRRule(rrule);
  } catch {
    return null;
  }
  const first = Temporal.Instant.fromEpochMilliseconds(firstStart).toZonedDateTimeISO(timeZone);
  return `${periodWords(rule)}${daysWords(rule, first)}${endWords(rule, timeZone)}`;
}
