import { describe, expect, it } from 'vitest';
import { describeHardBlock, previewWeek } from '@/server/domain/schedulePreview';

describe('describeHardBlock', () => {
  it.each([
    [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00' }, 'Every weekday, 12:00-13:00'],
    [{ days: ['wed', 'mon'], start: '08:00', end: '09:30' }, 'Every Monday and Wednesday, 08:00-09:30'],
    [{ rrule: 'FREQ=MONTHLY;BYDAY=2TU', dtstart: '2026-12-08T14:00', duration_minutes: 60 }, 'Every 2nd Tuesday of the month, 14:00-15:00 (from 2026-12-08)'],
    [{ rrule: 'FREQ=MONTHLY;BYDAY=-1FR', dtstart: '2026-12-25T16:00', duration_minutes: 30 }, 'Every last Friday of the month, 16:00-16:30 (from 2026-12-25)'],
    [{ rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=4', dtstart: '2026-12-01T14:00', duration_minutes: 60 }, 'Every 2 weeks on Tuesday, 14:00-15:00, 4 times (from 2026-12-01)'],
    [{ rrule: 'FREQ=DAILY', dtstart: '2026-12-01T23:30', duration_minutes: 60 }, 'Every day, 23:30-00:30 (from 2026-12-01)'],
  ] as const)('%j reads "%s"', (block, text) => {
    expect(describeHardBlock(block as never)).toBe(text);
  });

  it('answers the parser complaint for an unreadable rule', () => {
    expect(describeHardBlock({ rrule: 'FREQ=YEARLY', dtstart: '2026-12-01T10:00', duration_minutes: 5 })).toMatch(/^Unreadable rule: /);
  });
});

describe('previewWeek', () => {
  it('shows seven owner-local days from today, working time and blocks as local minutes', () => {
    // 2026-11-24 23:30 UTC is already Wednesday in Berlin.
    const p = previewWeek(
      { time_zone: 'Europe/Berlin', working_hours: { wed: [{ start: '09:00', end: '17:00' }] }, hard_blocks: [{ days: ['wed'], start: '12:00', end: '13:00' }] },
      'UTC',
      new Date('2026-11-24T23:30:00Z'),
    );
    expect(p.issues).toEqual([]);
    expect(p.days.map((d) => d.weekday)).toEqual(['wed', 'thu', 'fri', 'sat', 'sun', 'mon', 'tue']);
    expect(p.days[0]).toEqual({
      date: '2026-11-25',
      weekday: 'wed',
      working: [{ from: 540, to: 1020, label: '09:00-17:00' }],
      blocks: [{ from: 720, to: 780, label: '12:00-13:00' }],
    });
    expect(p.days[1].working).toEqual([]);
  });

  it('reports invalid ranges with the save paths and previews the rest', () => {
    const p = previewWeek({ working_hours: { mon: [{ start: '17:00', end: '09:00' }, { start: '18:00', end: '19:00' }] } }, 'UTC', new Date('2026-11-23T08:00:00Z'));
    expect(p.issues).toEqual([{ path: 'working_hours.mon[0]', message: 'start must be before end' }]);
    expect(p.days[0].working).toEqual([{ from: 1080, to: 1140, label: '18:00-19:00' }]);
  });

  it('answers an unknown zone as an issue with no days', () => {
    expect(previewWeek({ time_zone: 'Mars/Olympus', working_hours: null }, 'UTC', new Date())).toMatchObject({ days: [], issues: [{ path: 'time_zone' }] });
  });
});

describe('previewWeek with date overrides and out of office', () => {
  it('draws an override on its date (noted), an away day as none, and leaves out an override an issue names', () => {
    const p = previewWeek(
      {
        time_zone: 'Europe/Berlin',
        working_hours: { wed: [{ start: '09:00', end: '17:00' }], thu: [{ start: '09:00', end: '17:00' }] },
        date_overrides: [
          { date: '2026-11-28', working_hours: [{ start: '10:00', end: '12:00' }] }, // Saturday opened
          { date: '2026-11-26', working_hours: [{ start: '15:00', end: '14:00' }] }, // invalid: Thursday keeps its week
        ],
        out_of_office: [{ start: '2026-11-25', end: '2026-11-25' }], // today, a working Wednesday
      },
      'UTC',
      new Date('2026-11-24T23:30:00Z'),
    );
    expect(p.issues).toEqual([{ path: 'date_overrides[1].working_hours[0]', message: 'start must be before end' }]);
    const byDate = Object.fromEntries(p.days.map((d) => [d.date, d]));
    expect(byDate['2026-11-28']).toMatchObject({ note: 'override', working: [{ from: 600, to: 720, label: '10:00-12:00' }] });
    expect(byDate['2026-11-26']).toMatchObject({ working: [{ from: 540, to: 1020 }] });
    expect(byDate['2026-11-26'].note).toBeUndefined();
    expect(byDate['2026-11-25']).toMatchObject({ note: 'out_of_office', working: [] });
  });
});
