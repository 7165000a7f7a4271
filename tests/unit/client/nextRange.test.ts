import { describe, expect, it } from 'vitest';
import { nextRange } from '@/components/schedule/next-range';
import { validateOwnerRules } from '@/server/domain/scheduling';

/** Would the server accept the day with the proposed range added? */
function accepted(ranges: { start: string; end: string }[]): boolean {
  const issues = validateOwnerRules({ timeZone: 'Europe/Berlin', workingHours: { mon: ranges, tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] }, hardBlocks: [], maxDailyMeetingHours: null });
  return issues.length === 0;
}

describe('"Add range" proposes a range that fits (issue 23 item 2)', () => {
  it('after the default 09:00-17:00 proposes a range the server accepts', () => {
    const day = [{ start: '09:00', end: '17:00' }];
    const next = nextRange(day)!;
    expect(next).toEqual({ start: '17:00', end: '19:00' });
    expect(accepted([...day, next])).toBe(true);
    // the old proposal (13:00-17:00) is refused as overlapping, under its own range
    expect(validateOwnerRules({ timeZone: 'UTC', workingHours: { mon: [...day, { start: '13:00', end: '17:00' }] } as never, hardBlocks: [], maxDailyMeetingHours: null })).toEqual([
      { path: 'working_hours.mon[1]', message: 'overlaps another range of this day' },
    ]);
  });

  it('uses the morning when the evening is taken, and says when the day is full', () => {
    const late = [{ start: '10:00', end: '24:00' }];
    expect(nextRange(late)).toEqual({ start: '08:00', end: '10:00' });
    expect(accepted([...late, nextRange(late)!])).toBe(true);
    expect(nextRange([{ start: '00:00', end: '24:00' }])).toBeNull();
    expect(nextRange([])).toEqual({ start: '09:00', end: '17:00' });
  });
});
