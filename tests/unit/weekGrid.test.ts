import { describe, expect, it } from 'vitest';
import { placeInLanes } from '@/components/calendar/lanes';
import { dayClock, formatClockSpan, minutesIntoDay } from '@/components/ui/time-format';
import { classColour } from '@/components/calendar/display';

describe('week grid layout', () => {
  it('puts overlapping blocks side by side and lets a later block reuse a freed lane', () => {
    const placed = placeInLanes([
      { id: 'a', top: 60, bottom: 120 },
      { id: 'b', top: 90, bottom: 150 },
      { id: 'c', top: 130, bottom: 180 },
      { id: 'd', top: 300, bottom: 360 },
    ]);
    const by = Object.fromEntries(placed.map((p) => [p.id, [p.lane, p.lanes]]));
    expect(by).toEqual({ a: [0, 2], b: [1, 2], c: [0, 2], d: [0, 1] });
  });

  it("places times by the owner's wall clock, also on a 23-hour DST day", () => {
    // 2026-03-29 in Europe/Berlin: clocks jump from 02:00 to 03:00; the day starts at 2026-03-28T23:00Z.
    const dayStart = '2026-03-28T23:00:00.000Z';
    expect(minutesIntoDay('2026-03-29T08:00:00.000Z', dayStart, 'Europe/Berlin')).toBe(10 * 60); // 10:00 CEST
    expect(minutesIntoDay('2026-03-29T22:00:00.000Z', dayStart, 'Europe/Berlin')).toBe(1440); // next midnight
    expect(minutesIntoDay(dayStart, dayStart, 'Europe/Berlin')).toBe(0);
    expect(formatClockSpan('2026-03-29T08:00:00.000Z', '2026-03-29T09:30:00.000Z', 'Europe/Berlin')).toBe('10:00–11:30');
  });

  it('a day clock counts as minutesIntoDay does, by arithmetic on a 24-hour day and through Intl on a DST day', () => {
    const cases: [string, string, string][] = [
      ['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z', 'Europe/Berlin'], // 23 h
      ['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z', 'Europe/Berlin'], // 25 h
      ['2026-11-30T23:00:00.000Z', '2026-12-01T23:00:00.000Z', 'Europe/Berlin'], // 24 h
      ['2026-12-01T18:30:00.000Z', '2026-12-02T18:30:00.000Z', 'Asia/Kolkata'], // 24 h, a half-hour offset
    ];
    for (const [start, end, tz] of cases) {
      const clock = dayClock(start, end, tz);
      for (let ms = Date.parse(start) + 60_000; ms < Date.parse(end); ms += 37 * 60_000) {
        expect(clock(ms)).toBe(minutesIntoDay(new Date(ms).toISOString(), start, tz));
      }
      expect(clock(Date.parse(start))).toBe(0);
    }
  });

  it('gives a class the same colour every time', () => {
    expect(classColour('external')).toBe(classColour('external'));
    expect(classColour(null)).toBe('mc-6');
    expect(classColour('internal')).toMatch(/^mc-[0-7]$/);
  });
});
