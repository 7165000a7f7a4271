import { Temporal } from 'temporal-polyfill';
import { api, uniqueEmail, type TestCustomer } from '../../helpers/app';

export const STANDARD_CLASSES = [
  { name: 'external', priority: 50 },
  { name: 'internal', priority: 30 },
  { name: 'focus', priority: 10 },
  { name: 'guarded', priority: 40, preempt_policy: 'never' },
];

/**
 * An owner with Mon-Fri 09:00-17:00 in `timeZone` and the standard classes
 * (created once per customer). Returns the owner's email.
 */
export async function setupOwner(
  admin: TestCustomer,
  opts: { timeZone?: string; workingHours?: Record<string, { start: string; end: string }[]> | null; hardBlocks?: unknown[]; maxDailyMeetingHours?: number | null } = {},
): Promise<string> {
  const email = uniqueEmail();
  const tz = opts.timeZone ?? 'UTC';
  const created = await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: tz } });
  if (created.status !== 201) throw new Error(created.text);
  const nineToFive = [{ start: '09:00', end: '17:00' }];
  const workingHours = opts.workingHours === undefined ? { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive } : opts.workingHours;
  const rules = await api('PUT', '/v1/schedule-rules', {
    key: admin.key,
    body: { owner_email: email, working_hours: workingHours, hard_blocks: opts.hardBlocks ?? [], max_daily_meeting_hours: opts.maxDailyMeetingHours ?? null },
  });
  if (rules.status !== 200) throw new Error(rules.text);
  for (const c of STANDARD_CLASSES) await api('POST', '/v1/meeting-classes', { key: admin.key, body: c }); // 409 when present: fine
  return email;
}

const DAYS = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 7 } as const;

/** A day at least a week ahead (so tests never touch the past), and UTC ISO strings for local times on it. */
export function nextWeekday(day: keyof typeof DAYS, timeZone: string, weeksAhead = 1) {
  const today = Temporal.Now.plainDateISO(timeZone);
  const delta = (DAYS[day] - today.dayOfWeek + 7) % 7;
  const date = today.add({ days: delta + 7 * weeksAhead });
  return {
    date,
    at(hhmm: string): string {
      const [h, m] = hhmm.split(':').map(Number);
      return date.toZonedDateTime({ timeZone, plainTime: Temporal.PlainTime.from({ hour: h, minute: m }) }).toInstant().toString({ smallestUnit: 'millisecond' });
    },
  };
}
