import { z } from 'zod';
import { LOCAL_TIME_PATTERN } from '@/server/schemas/common';
import { timeExample } from './time-format';

/**
 * The one error map of the browser's forms (docs/dashboard.md "Forms"): every
 * validation issue of a zod schema in plain words, instead of the validator's
 * text ("Too small: expected string to have >=1 characters", "expected
 * number, received NaN"). Times are named in the format the browser shows in
 * a time input (this locale's 12- or 24-hour clock). A message a schema
 * writes itself is kept, except the API's "must be HH:MM", which becomes the
 * time wording.
 */

export { timeExample };

type Issue = z.core.$ZodIssue;

/** The validator's own message for an issue (to tell it from a message the schema chose). */
function defaultMessage(issue: Issue, input: unknown): string | undefined {
  const r = z.core.config().localeError?.({ ...issue, input } as never);
  return typeof r === 'string' ? r : r?.message;
}

const plural = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

/** Plain words for one issue; `input`: the value the issue is about (for empty versus wrong). */
export function plainMessage(issue: Issue, input: unknown, locale?: string): string {
  const timeWords = `Enter a time, such as ${timeExample(9, 0, locale)} or ${timeExample(17, 30, locale)}`;
  if (issue.code === 'invalid_format' && issue.format === 'regex' && 'pattern' in issue && String(issue.pattern) === String(LOCAL_TIME_PATTERN)) {
    return input === '' || input == null ? 'Enter a time' : timeWords;
  }
  if (issue.message && issue.message !== defaultMessage(issue, input)) return issue.message;
  const empty = input === undefined || input === null || input === '' || (typeof input === 'number' && Number.isNaN(input));
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'number' || issue.expected === 'int') return empty ? 'Enter a number' : 'Enter a number, using digits only';
      if (issue.expected === 'array') return 'Choose at least one';
      if (issue.expected === 'boolean') return 'Choose yes or no';
      return empty ? 'Fill this in' : 'This value is not accepted here';
    case 'too_small': {
      const min = issue.minimum as number;
      if (issue.origin === 'string') return min <= 1 || input === '' ? 'Fill this in' : `Use at least ${plural(min, 'character', 'characters')}`;
      if (issue.origin === 'array' || issue.origin === 'set') return min <= 1 ? 'Choose at least one' : `Choose at least ${min}`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') return issue.inclusive ? `Enter ${min} or more` : `Enter more than ${min}`;
      return 'Too early or too small';
    }
    case 'too_big': {
      const max = issue.maximum as number;
      if (issue.origin === 'string') return `Keep it to ${plural(max, 'character', 'characters')} or fewer`;
      if (issue.origin === 'array' || issue.origin === 'set') return `Choose at most ${max}`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') return issue.inclusive ? `Enter ${max} or less` : `Enter less than ${max}`;
      return 'Too late or too big';
    }
    case 'invalid_format':
      if (empty) return 'Fill this in';
      switch (issue.format) {
        case 'email':
          return 'Enter an email address, such as name@example.com';
        case 'url':
          return 'Enter a web address starting with https://';
        case 'datetime':
        case 'date':
          return 'Choose a date and time';
        case 'time':
          return timeWords;
        default:
          return 'This is not in the expected form';
      }
    case 'not_multiple_of':
      return `Use steps of ${issue.divisor}`;
    case 'invalid_value':
      return 'Choose one of the options';
    case 'unrecognized_keys':
      return 'This form sent a field that is not allowed; reload the page';
    case 'invalid_union':
      return empty ? 'Fill this in' : 'Check this value';
    default:
      return 'Check this value';
  }
}

/** The value at an issue's path in the form's values. */
export function valueAt(values: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = values;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
