import { describe, expect, it } from 'vitest';
import { expandIcs } from '@/server/domain/calendars/expand';
import { WEEKLY_SERIES_EXPECTED, weeklySeriesIcs } from './fixtures';

const RANGE = { start: Date.parse('2026-03-01T00:00:00Z'), end: Date.parse('2026-06-01T00:00:00Z') };
const iso = (b: { start: number; end: number }) => [new Date(b.start).toISOString(), new Date(b.end).toISOString()];
const wrap = (body: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n${body.trim().replace(/\n/g, '\r\n')}\r\nEND:VCALENDAR\r\n`;

describe('expandIcs', () => {
  it('expands a weekly zoned series with an EXDATE and a moved instance across a DST change', () => {
    const out = expandIcs(weeklySeriesIcs('w1'), RANGE, 'America/New_York').sort((a, b) => a.start - b.start);
    expect(out.map(iso)).toEqual(WEEKLY_SERIES_EXPECTED);
    expect(new Set(out.map((b) => b.uid))).toEqual(new Set(['w1']));
  });

  it('reads floating times and all-day dates in the owner zone, and a bare IANA TZID in that zone', () => {
    const ics = wrap(`
BEGIN:VEVENT
UID:f1
DTSTART:20260410T090000
DTEND:20260410T093000
END:VEVENT
BEGIN:VEVENT
UID:d1
DTSTART;VALUE=DATE:20260411
DTEND;VALUE=DATE:20260412
END:VEVENT
BEGIN:VEVENT
UID:z1
DTSTART;TZID=Asia/Tokyo:20260412T090000
DTEND;TZID=Asia/Tokyo:20260412T100000
END:VEVENT`);
    const out = expandIcs(ics, RANGE, 'Europe/Berlin').sort((a, b) => a.start - b.start);
    expect(out.map(iso)).toEqual([
      ['2026-04-10T07:00:00.000Z', '2026-04-10T07:30:00.000Z'],
      ['2026-04-10T22:00:00.000Z', '2026-04-11T22:00:00.000Z'],
      ['2026-04-12T00:00:00.000Z', '2026-04-12T01:00:00.000Z'],
    ]);
  });

  it('skips cancelled and transparent events, honours RDATE and the range bound', () => {
    const ics = wrap(`
BEGIN:VEVENT
UID:c1
DTSTART:20260410T090000Z
DTEND:20260410T100000Z
STATUS:CANCELLED
END:VEVENT
BEGIN:VEVENT
UID:t1
DTSTART:20260410T090000Z
DTEND:20260410T100000Z
TRANSP:TRANSPARENT
END:VEVENT
BEGIN:VEVENT
UID:r1
DTSTART:20260402T090000Z
DTEND:20260402T100000Z
RRULE:FREQ=DAILY
RDATE:20260401T150000Z
END:VEVENT`);
    const out = expandIcs(ics, { start: Date.parse('2026-04-01T00:00:00Z'), end: Date.parse('2026-04-04T00:00:00Z') }, 'UTC').sort((a, b) => a.start - b.start);
    expect(out.map(iso)).toEqual([
      ['2026-04-01T15:00:00.000Z', '2026-04-01T16:00:00.000Z'],
      ['2026-04-02T09:00:00.000Z', '2026-04-02T10:00:00.000Z'],
      ['2026-04-03T09:00:00.000Z', '2026-04-03T10:00:00.000Z'],
    ]);
  });
});
