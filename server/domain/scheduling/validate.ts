/**
 * Validation of owner rules, for the layer that stores them (PUT /v1/schedule-rules). The pure
 * functions assume valid rules: an unparseable RRULE would make them throw.
 */
import { Temporal } from 'temporal-polyfill';
import { parseLocalTime } from './civil';
import { RRuleError, parseLocalDateTime, parseRRule } from './rrule';
import { WEEKDAYS, type OwnerRules } from './types';

export type RuleIssue = { path: string; message: string };

function timeOk(value: unknown, allow24: boolean): number | null {
  if (typeof value !== 'string') return null;
  try {
    return parseLocalTime(value, allow24);
  } catch {
    return null;
  }
}

/** Returns the problems found ([] = valid). */
export function validateOwnerRules(rules: OwnerRules): RuleIssue[] {
  const issues: RuleIssue[] = [];
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(rules.timeZone);
  } catch {
    issues.push({ path: 'time_zone', message: `unknown IANA time zone "${rules.timeZone}"` });
  }
  if (rules.workingHours) {
    for (const day of WEEKDAYS) {
      (rules.workingHours[day] ?? []).forEach((r, i) => {
        const a = timeOk(r.start, false);
        const b = timeOk(r.end, true);
        const path = `working_hours.${day}[${i}]`;
        if (a === null || b === null) issues.push({ path, message: 'times must be HH:MM (end may be 24:00)' });
        else if (b <= a) issues.push({ path, message: 'start must be before end' });
      });
    }
  }
  rules.hardBlocks.forEach((block, i) => {
    const path = `hard_blocks[${i}]`;
    if ('rrule' in block) {
      try {
        parseRRule(block.rrule);
        parseLocalDateTime(block.dtstart);
        if (!(Number.isInteger(block.duration_minutes) && block.duration_minutes > 0)) {
          issues.push({ path, message: 'duration_minutes must be a positive integer' });
        }
      } catch (err) {
        if (!(err instanceof RRuleError)) throw err;
        issues.push({ path, message: err.message });
      }
    } else {
      if (!block.days.length || block.days.some((d) => !WEEKDAYS.includes(d))) {
        issues.push({ path, message: 'days must be a non-empty list of mon..sun' });
      }
      const a = timeOk(block.start, false);
      const b = timeOk(block.end, true);
      if (a === null || b === null) issues.push({ path, message: 'times must be HH:MM (end may be 24:00)' });
      else if (a === b) issues.push({ path, message: 'start and end must differ' });
    }
  });
  const max = rules.maxDailyMeetingHours;
  if (max !== null && !(typeof max === 'number' && max >= 0 && max <= 24)) {
    issues.push({ path: 'max_daily_meeting_hours', message: 'must be between 0 and 24' });
  }
  return issues;
}
