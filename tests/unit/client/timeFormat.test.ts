import { describe, expect, it } from 'vitest';
import { RuleTester } from 'eslint';
import { formatClockSpan, formatDateTime, formatDayMonth, formatMoment, formatSlot, formatWeekday, timeExample, wallTime, zonedWallTimeToIso } from '@/components/ui/time-format';
import local from '../../../eslint-rules/no-raw-datetime-formatting.mjs';

describe('the one time-format module (components/ui/time-format.ts)', () => {
  const start = '2026-11-30T09:30:00.000Z';
  const end = '2026-11-30T10:30:00.000Z';
  it('writes the dashboard in one style: day before month, a 24-hour clock, in the zone given', () => {
    expect(formatWeekday(start, 'Europe/Berlin')).toBe('Mon 30 Nov');
    expect(formatClockSpan(start, end, 'Europe/Berlin')).toBe('10:30–11:30');
    expect(formatSlot(start, end, 'America/New_York')).toBe('Mon 30 Nov, 04:30–05:30');
    expect(formatDateTime(start, 'Europe/Berlin')).toBe('30 Nov 2026, 10:30');
    expect(formatDayMonth('2026-11-30T23:30:00Z', 'Europe/Berlin')).toBe('1 Dec');
    expect(formatMoment(start, 'minute', 'UTC')).toBe('30 Nov 2026, 09:30');
  });
  it('round-trips a datetime-local value through the zone', () => {
    expect(wallTime(start, 'Europe/Berlin')).toBe('2026-11-30T10:30');
    expect(zonedWallTimeToIso('2026-11-30T10:30', 'Europe/Berlin')).toBe(start);
    expect(zonedWallTimeToIso('not a time', 'Europe/Berlin')).toBeNull();
  });
  it('names a time as the locale writes it in a time input', () => {
    expect(timeExample(17, 30, 'en-US')).toMatch(/^5:30\sPM$/);
    expect(timeExample(9, 0, 'de-DE')).toBe('09:00');
  });
});

describe('local/no-raw-datetime-formatting', () => {
  it('reports toLocale*String and Intl.DateTimeFormat, and nothing else', () => {
    new RuleTester().run('no-raw-datetime-formatting', local.rules['no-raw-datetime-formatting'], {
      valid: ['formatSlot(a, b, tz)', 'new Intl.NumberFormat("en").format(1)', 'x.toString()'],
      invalid: [
        { code: 'new Date().toLocaleString()', errors: [{ messageId: 'method' }] },
        { code: 'd.toLocaleDateString("en")', errors: [{ messageId: 'method' }] },
        { code: 'd.toLocaleTimeString()', errors: [{ messageId: 'method' }] },
        { code: 'new Intl.DateTimeFormat("en-GB").format(d)', errors: [{ messageId: 'intl' }] },
        { code: 'Intl.DateTimeFormat().resolvedOptions()', errors: [{ messageId: 'intl' }] },
      ],
    });
  });
});
