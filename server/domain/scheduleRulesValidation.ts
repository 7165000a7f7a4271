import type { HardBlockJson, WorkingHoursJson } from '@/db/schema';
import { DomainError } from './errors';

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const LOCAL_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const RRULE_PARTS = new Set(['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'WKST']);

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

function fail(path: string, message: string): never {
  throw new DomainError('INVALID_SCHEDULE_RULES', `${path}: ${message}`, { details: { fields: [{ path, message }] } });
}

/** Semantic checks beyond the zod shape: ranges ordered and non-overlapping, RRULEs well formed. */
export function validateScheduleRules(rules: { workingHours: WorkingHoursJson | null; hardBlocks: HardBlockJson[]; timeZone: string }): void {
  if (rules.workingHours) {
    for (const [day, ranges] of Object.entries(rules.workingHours)) {
      const sorted = [...ranges].sort((a, b) => minutes(a.start) - minutes(b.start));
      sorted.forEach((r, i) => {
        if (!HHMM.test(r.start) || !HHMM.test(r.end)) fail(`working_hours.${day}[${i}]`, 'times must be HH:MM');
        if (minutes(r.end) <= minutes(r.start)) fail(`working_hours.${day}[${i}]`, 'end must be after start');
        if (i > 0 && minutes(r.start) < minutes(sorted[i - 1].end)) fail(`working_hours.${day}`, 'ranges overlap');
      });
    }
  }
  rules.hardBlocks.forEach((b, i) => {
    const path = `hard_blocks[${i}]`;
    if ('rrule' in b) {
      if (!LOCAL_DATETIME.test(b.dtstart)) fail(`${path}.dtstart`, 'must be an owner-local date-time YYYY-MM-DDTHH:MM');
      const parts = b.rrule.replace(/^RRULE:/i, '').split(';').filter(Boolean);
      const keys = parts.map((p) => p.split('=')[0]?.toUpperCase());
      if (!parts.every((p) => /^[A-Z]+=[A-Z0-9,+\-]+$/i.test(p)) || !keys.every((k) => RRULE_PARTS.has(k))) {
        fail(`${path}.rrule`, 'unsupported or malformed RRULE');
      }
      const freq = parts.find((p) => p.toUpperCase().startsWith('FREQ='))?.split('=')[1]?.toUpperCase();
      if (!freq || !['DAILY', 'WEEKLY', 'MONTHLY'].includes(freq)) fail(`${path}.rrule`, 'FREQ must be DAILY, WEEKLY or MONTHLY');
    } else if (minutes(b.end) <= minutes(b.start)) {
      fail(path, 'end must be after start');
    }
  });
}
