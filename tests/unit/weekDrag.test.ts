import { describe, expect, it } from 'vitest';
import { clampLength, draftOf, instantsOf, moveTo, resizeTo, shiftDay, snap, step, unchanged } from '@/components/calendar/drag-math';

/** The week's drag and keyboard moves (components/calendar/drag-math.ts; docs/dashboard.md "Moving on the week"). */
describe('moving on the week', () => {
  const tz = 'Europe/Berlin';
  const dates = ['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05', '2026-12-06'];
  // Wed 2 Dec 2026, 10:05–11:05 in Berlin (UTC+1)
  const d = draftOf('b1', 'Client call', '2026-12-02T09:05:00.000Z', '2026-12-02T10:05:00.000Z', tz);

  it("reads a booking's owner-local day, start and length", () => {
    expect([d.date, d.min, d.dur]).toEqual(['2026-12-02', 10 * 60 + 5, 60]);
    expect(unchanged(d)).toBe(true);
  });

  it('snaps to quarter hours: a drag to the nearest, a key to the next one up or down', () => {
    expect(snap(607)).toBe(600);
    expect(snap(608)).toBe(615);
    expect(step(605, -1)).toBe(600);
    expect(step(605, 1)).toBe(615);
    expect(step(600, -1)).toBe(585);
    expect(step(600, 1)).toBe(615);
  });

  it('moves across days and keeps the length; the instants are the wall time in the zone', () => {
    const moved = moveTo(d, '2026-12-03', 14 * 60 + 4);
    expect([moved.date, moved.min, moved.dur]).toEqual(['2026-12-03', 14 * 60, 60]);
    expect(instantsOf(moved, tz)).toEqual({ start: '2026-12-03T13:00:00.000Z', end: '2026-12-03T14:00:00.000Z' });
    expect(unchanged(moved)).toBe(false);
  });

  it('keeps a moved meeting inside its day and the week', () => {
    expect(moveTo(d, '2026-12-02', -90).min).toBe(0);
    expect(moveTo(d, '2026-12-02', 1500).min).toBe(1440 - 15);
    expect(shiftDay(d, dates, 1).date).toBe('2026-12-03');
    expect(shiftDay({ ...d, date: '2026-12-06' }, dates, 1).date).toBe('2026-12-06');
    expect(shiftDay({ ...d, date: '2026-11-30' }, dates, -1).date).toBe('2026-11-30');
  });

  it('resizes by the end: at least a quarter hour, never past midnight', () => {
    const at10 = moveTo(d, d.date, 600);
    expect(resizeTo(at10, 11 * 60 + 29).dur).toBe(90);
    expect(resizeTo(at10, 590).dur).toBe(15);
    expect(clampLength(1380, 120)).toBe(60);
  });

  it('counts a DST day by its wall clock (29 Mar 2026, Berlin: 02:00 → 03:00)', () => {
    const sunday = moveTo(draftOf('b2', 'x', '2026-03-28T09:00:00.000Z', '2026-03-28T10:00:00.000Z', tz), '2026-03-29', 10 * 60);
    expect(instantsOf(sunday, tz)).toEqual({ start: '2026-03-29T08:00:00.000Z', end: '2026-03-29T09:00:00.000Z' });
  });
});
