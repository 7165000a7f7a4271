import { describe, expect, it } from 'vitest';
import { recurrenceInWords } from '@/server/domain/scheduling/seriesWords';

/** A series' rule in plain words for the dashboard (server/domain/scheduling/seriesWords.ts). */
describe('recurrenceInWords', () => {
  // Wednesday 2 December 2026, 10:00 in Berlin (09:00 UTC).
  const wed = Date.parse('2026-12-02T09:00:00Z');
  const words = (rule: string, start = wed, tz = 'Europe/Berlin') => recurrenceInWords(rule, start, tz);

  it('names the period, the days and the end', () => {
    expect(words('FREQ=WEEKLY;COUNT=6')).toBe('Weekly on Wednesday, 6 times');
    expect(words('RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=6')).toBe('Weekly on Wednesday, 6 times');
    expect(words('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;COUNT=12')).toBe('Every 2 weeks on Monday, Wednesday and Friday, 12 times');
    expect(words('FREQ=DAILY;COUNT=1')).toBe('Daily, once');
    expect(words('FREQ=DAILY;INTERVAL=3;COUNT=4')).toBe('Every 3 days, 4 times');
    expect(words('FREQ=DAILY;BYDAY=MO,TU;COUNT=4')).toBe('Daily on Monday and Tuesday, 4 times');
  });

  it('monthly rules: the day of the month, an nth weekday, the last one', () => {
    expect(words('FREQ=MONTHLY;COUNT=3')).toBe('Monthly on day 2, 3 times');
    expect(words('FREQ=MONTHLY;BYMONTHDAY=15,-1;COUNT=3')).toBe('Monthly on day 15 and the last day, 3 times');
    expect(words('FREQ=MONTHLY;BYDAY=1WE;COUNT=3')).toBe('Monthly on the first Wednesday, 3 times');
    expect(words('FREQ=MONTHLY;INTERVAL=6;BYDAY=-1FR,-2MO;COUNT=2')).toBe('Every 6 months on the last Friday and the second to last Monday, 2 times');
  });

  it("UNTIL as a date in the owner's zone", () => {
    expect(words('FREQ=WEEKLY;UNTIL=20270301')).toBe('Weekly on Wednesday, until 1 March 2027');
    // 23:30 UTC on 28 Feb is already 1 March in Berlin.
    expect(words('FREQ=WEEKLY;UNTIL=20270228T233000Z')).toBe('Weekly on Wednesday, until 1 March 2027');
    expect(words('FREQ=WEEKLY;UNTIL=20270228T233000Z', wed, 'America/New_York')).toBe('Weekly on Wednesday, until 28 February 2027');
  });

  it("a plain weekly rule takes the first occurrence's weekday in the owner's zone", () => {
    // Tuesday 08:00 in Auckland is Monday 19:00 UTC.
    expect(words('FREQ=WEEKLY;COUNT=2', Date.parse('2026-12-07T19:00:00Z'), 'Pacific/Auckland')).toBe('Weekly on Tuesday, 2 times');
  });

  it('null for a rule outside the subset', () => {
    expect(words('FREQ=HOURLY;COUNT=2')).toBeNull();
    expect(words('nonsense')).toBeNull();
  });
});
