import { describe, expect, it } from 'vitest';
import { overlayCandidates } from '@/server/domain/weekView/overlay';
import type { WeekView } from '@/server/domain/weekView';

const day = (date: string, working: { start: string; end: string }[], blocks: { start: string; end: string }[] = []) => ({
  date,
  weekday: 'Monday',
  start: `${date}T00:00:00.000Z`,
  end: `${date}T23:59:59.999Z`,
  working,
  blocks,
  booked_minutes: 0,
});

function week(events: Partial<WeekView['events'][number]>[], configured = true): WeekView {
  return {
    owner: { email: 'o@example.com', name: null, time_zone: 'UTC', max_daily_meeting_hours: null, working_hours_configured: configured },
    week_start: '2030-01-07',
    previous_week: '2029-12-31',
    next_week: '2030-01-14',
    this_week: '2030-01-07',
    next_meeting_week: false,
    today: '2030-01-07',
    days: [day('2030-01-07', [{ start: '2030-01-07T09:00:00.000Z', end: '2030-01-07T17:00:00.000Z' }], [{ start: '2030-01-07T12:00:00.000Z', end: '2030-01-07T13:00:00.000Z' }])],
    events: events.map((e, i) => ({
      id: `e${i}`,
      kind: 'booking' as const,
      status: 'confirmed' as const,
      start: '',
      end: '',
      title: null,
      meeting_class: null,
      priority: null,
      sacred: false,
      source: 'agent' as const,
      agent: null,
      attendees: 0,
      group_id: null,
      co_hosts: [],
      series_id: null,
      ...e,
    })),
  };
}

const at = (hh: string) => `2030-01-07T${hh}:00.000Z`;

describe('overlayCandidates', () => {
  it('names overlapping active claims only (touching ends and ended bookings do not count)', () => {
    const w = week([
      { start: at('10:00'), end: at('10:30') },
      { start: at('11:00'), end: at('11:30'), status: 'preempted' },
      { start: at('09:00'), end: at('09:30'), kind: 'hold', status: 'active' },
    ]);
    const [a, b, c] = overlayCandidates(w, [
      { start: at('10:15'), end: at('11:15') },
      { start: at('10:30'), end: at('11:30') },
      { start: at('09:15'), end: at('09:45') },
    ]);
    expect(a.conflicts).toEqual(['e0']);
    expect(b.conflicts).toEqual([]);
    expect(c.conflicts).toEqual(['e2']);
  });

  it('flags hard blocks and time outside working hours (never when hours are not configured)', () => {
    const [inBlock, late] = overlayCandidates(week([]), [
      { start: at('11:30'), end: at('12:30') },
      { start: at('16:30'), end: at('17:30') },
    ]);
    expect(inBlock).toMatchObject({ in_hard_block: true, outside_working_hours: false });
    expect(late).toMatchObject({ in_hard_block: false, outside_working_hours: true });
    expect(overlayCandidates(week([], false), [{ start: at('16:30'), end: at('17:30') }])[0].outside_working_hours).toBe(false);
  });
});
