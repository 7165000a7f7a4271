import { describe, expect, it } from 'vitest';
import { DayTable, DAY, HOUR } from '@/server/domain/scheduling/localTime';

describe('DayTable.forEachGridPoint', () => {
  const from = Date.parse('2026-03-02T00:00:00Z');
  const to = from + 3 * DAY;

  const visitAll = (table: DayTable, onVisit?: (t: number, i: number) => void): number[] => {
    const seen: number[] = [];
    table.forEachGridPoint(from, to, 60, (t) => {
      onVisit?.(t, seen.length);
      seen.push(t);
      return seen.length < 200; // a revisiting walk could loop for ever
    });
    return seen;
  };

  it('visits every grid point once, in increasing order, when the callback extends the table backwards', () => {
    const expected = visitAll(new DayTable('Europe/Berlin'));
    expect(expected.length).toBe(72);
    const table = new DayTable('Europe/Berlin');
    // Each visit reaches a day further back (as an evaluation looking at earlier days would).
    const seen = visitAll(table, (_, i) => table.ensure(from - (i + 1) * DAY, from - (i + 1) * DAY));
    expect(seen).toEqual(expected);
    expect(table.from).toBeLessThan(from - 70 * DAY);
  });

  it('visits every grid point once when the callback extends the table forwards', () => {
    const expected = visitAll(new DayTable('America/New_York'));
    const table = new DayTable('America/New_York');
    const seen = visitAll(table, (t) => table.ensure(t, t + 10 * DAY + HOUR));
    expect(seen).toEqual(expected);
  });
});
