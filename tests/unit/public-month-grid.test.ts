import { describe, expect, it } from 'vitest';
import { addMonths, clampToMonths, keyTarget, monthWeeks, weekStart, weekdayDates } from '@/components/public/month-grid';

/** The month view's calendar arithmetic (docs/public-scheduling.md "Month view"). */
describe('month grid', () => {
  it('lays December 2026 out in weeks from Monday or from Sunday', () => {
    const monday = monthWeeks('2026-12', 1);
    expect(monday).toHaveLength(5);
    expect(monday[0]).toEqual([null, '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05', '2026-12-06']);
    expect(monday[4]).toEqual(['2026-12-28', '2026-12-29', '2026-12-30', '2026-12-31', null, null, null]);
    const sunday = monthWeeks('2026-12', 7);
    expect(sunday[0]).toEqual([null, null, '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05']);
    expect(sunday.at(-1)).toEqual(['2026-12-27', '2026-12-28', '2026-12-29', '2026-12-30', '2026-12-31', null, null]);
    // Saturday-first (as in Arabic-speaking Egypt): 1 December 2026 is a Tuesday.
    expect(monthWeeks('2026-12', 6)[0]).toEqual([null, null, null, '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04']);
  });

  it('has six rows for a month that spreads over six weeks, four for February 2027 from Monday', () => {
    expect(monthWeeks('2026-08', 1)).toHaveLength(6);
    expect(monthWeeks('2027-02', 1)).toHaveLength(4);
    expect(monthWeeks('2024-02', 1).flat().filter(Boolean)).toHaveLength(29);
  });

  it('names the weekday columns from the first day', () => {
    expect(weekdayDates(1)[0]).toBe('2024-01-01');
    expect(weekdayDates(7)).toEqual(['2024-01-07', '2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06']);
  });

  it('starts weeks where the locale does, Monday when unknown', () => {
    expect(weekStart('en-US')).toBe(7);
    expect(weekStart('de')).toBe(1);
    expect(weekStart('en-GB')).toBe(1);
    expect(weekStart('not a locale!')).toBe(1);
  });

  it('moves by day, week, week edge and month', () => {
    const o = { firstDay: 1, rtl: false };
    expect(keyTarget('2026-12-31', 'ArrowRight', o)).toBe('2027-01-01');
    expect(keyTarget('2026-12-01', 'ArrowLeft', o)).toBe('2026-11-30');
    expect(keyTarget('2026-12-01', 'ArrowDown', o)).toBe('2026-12-08');
    expect(keyTarget('2026-12-03', 'ArrowUp', o)).toBe('2026-11-26');
    expect(keyTarget('2026-12-03', 'Home', o)).toBe('2026-11-30');
    expect(keyTarget('2026-12-03', 'End', o)).toBe('2026-12-06');
    expect(keyTarget('2026-12-03', 'Home', { firstDay: 7, rtl: false })).toBe('2026-11-29');
    expect(keyTarget('2027-01-31', 'PageDown', o)).toBe('2027-02-28');
    expect(keyTarget('2026-12-15', 'PageUp', o)).toBe('2026-11-15');
    expect(keyTarget('2026-12-15', 'Tab', o)).toBeNull();
  });

  it('mirrors the arrows right to left', () => {
    const o = { firstDay: 6, rtl: true };
    expect(keyTarget('2026-12-15', 'ArrowLeft', o)).toBe('2026-12-16');
    expect(keyTarget('2026-12-15', 'ArrowRight', o)).toBe('2026-12-14');
  });

  it('adds months across years and keeps a date inside the bookable months', () => {
    expect(addMonths('2026-12', 1)).toBe('2027-01');
    expect(addMonths('2027-01', -1)).toBe('2026-12');
    expect(clampToMonths('2026-10-31', '2026-11', '2027-02')).toBe('2026-11-01');
    expect(clampToMonths('2027-03-02', '2026-11', '2027-02')).toBe('2027-02-28');
    expect(clampToMonths('2026-12-02', '2026-11', '2027-02')).toBe('2026-12-02');
  });
});
