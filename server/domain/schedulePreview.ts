import type { DateOverrideJson, HardBlockJson, OutOfOfficeJson, Weekday, WorkingHoursJson } from '@/db/schema';
import { WEEKDAYS } from './ownerService';
import {
  canonicalTimeZone,
  hardBlockIntervals,
  localDayBounds,
  parseRRule,
  RRuleError,
  validateOwnerRules,
  workingIntervals,
  type Interval,
  type OwnerRules,
  type RuleIssue,
} from './scheduling';

/** Draft rules as the schedule form holds them (the PUT /v1/schedule-rules body without owner_email). */
export type DraftRules = {
  time_zone?: string;
  working_hours: Partial<WorkingHoursJson> | null;
  hard_blocks?: HardBlockJson[];
  max_daily_meeting_hours?: number | null;
  date_overrides?: DateOverrideJson[];
  out_of_office?: OutOfOfficeJson[];
};

/** A stretch of one local day, as owner-local minutes since midnight (end may be 1440). */
type PreviewSpan = { from: number; to: number; label: string };
/** `note`: why the day differs from its weekday (docs/arbitration.md "Date overrides", "Out of office"). */
type PreviewDay = { date: string; weekday: Weekday; working: PreviewSpan[]; blocks: PreviewSpan[]; note?: 'override' | 'out_of_office' };
export type WeekPreview = { time_zone: string; days: PreviewDay[]; issues: RuleIssue[]; working_hours_configured: boolean };

const PREVIEW_DAYS = 7;

function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** Intervals of [dayStart, dayEnd) as owner-local minute spans (DST days: the real elapsed minutes, capped at 1440). */
function spans(list: Interval[], dayStart: number, dayEnd: number, label: (i: Interval) => string): PreviewSpan[] {
  return list
    .filter((i) => i.end > dayStart && i.start < dayEnd)
    .map((i) => {
      const from = Math.max(0, Math.round((Math.max(i.start, dayStart) - dayStart) / 60_000));
      const to = Math.min(1440, Math.round((Math.min(i.end, dayEnd) - dayStart) / 60_000));
      return { from, to, label: label(i) };
    });
}

/**
 * What agents would be offered in the coming week under draft rules: for each
 * of the next seven owner-local days, the working time and the hard blocks.
 * Problems in the draft come back as `issues` (the same checks and paths as
 * PUT /v1/schedule-rules); the preview then shows what is valid so far.
 */
export function previewWeek(draft: DraftRules, fallbackTimeZone: string, now: Date): WeekPreview {
  const requested = draft.time_zone?.trim() || fallbackTimeZone;
  const timeZone = canonicalTimeZone(requested);
  const workingHours = draft.working_hours
    ? (Object.fromEntries(WEEKDAYS.map((d) => [d, draft.working_hours![d] ?? []])) as WorkingHoursJson)
    : null;
  const hardBlocks = draft.hard_blocks ?? [];
  if (timeZone === null) {
    return { time_zone: requested, days: [], issues: [{ path: 'time_zone', message: `"${requested}" is not a time zone we know: choose one from the list, such as Europe/Berlin` }], working_hours_configured: !!workingHours };
  }
  const dateOverrides = draft.date_overrides ?? [];
  const rules: OwnerRules = { timeZone, workingHours, hardBlocks, maxDailyMeetingHours: draft.max_daily_meeting_hours ?? null, dateOverrides, outOfOffice: draft.out_of_office ?? [] };
  const issues = validateOwnerRules(rules);
  // Preview only what is valid: drop the faulty ranges and blocks the issues name.
  const bad = new Set(issues.map((i) => i.path));
  const usable: OwnerRules = {
    ...rules,
    workingHours: workingHours
      ? (Object.fromEntries(WEEKDAYS.map((d) => [d, workingHours[d].filter((_, i) => !bad.has(`working_hours.${d}[${i}]`))])) as WorkingHoursJson)
      : null,
    hardBlocks: hardBlocks.filter((_, i) => !bad.has(`hard_blocks[${i}]`)),
    // An override with any issue is left out whole (its date then shows its weekly hours).
    dateOverrides: dateOverrides.filter((_, i) => ![...bad].some((p) => p === 'date_overrides' || p === `date_overrides[${i}]` || p.startsWith(`date_overrides[${i}].`))),
    outOfOffice: (draft.out_of_office ?? []).filter((_, i) => ![...bad].some((p) => p === 'out_of_office' || p === `out_of_office[${i}]` || p.startsWith(`out_of_office[${i}].`))),
  };
  const fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short' });
  const days: PreviewDay[] = [];
  let cursor = now.getTime();
  const first = localDayBounds(timeZone, cursor).start;
  const last = first + (PREVIEW_DAYS + 1) * 86_400_000;
  const working = workingIntervals(usable, first, last);
  const blocks = hardBlockIntervals(usable, first, last);
  for (let n = 0; n < PREVIEW_DAYS; n++) {
    const day = localDayBounds(timeZone, cursor);
    const parts = Object.fromEntries(fmt.formatToParts(new Date(day.start)).map((p) => [p.type, p.value]));
    const weekday = parts.weekday.toLowerCase().slice(0, 3) as Weekday;
    const spanLabel = (s: PreviewSpan) => `${clock(s.from)}-${clock(s.to)}`;
    const w = spans(working, day.start, day.end, () => '').map((s) => ({ ...s, label: spanLabel(s) }));
    const b = spans(blocks, day.start, day.end, () => '').map((s) => ({ ...s, label: spanLabel(s) }));
    const date = `${parts.year}-${parts.month}-${parts.day}`;
    const away = usable.outOfOffice?.some((r) => r.start <= date && date <= r.end);
    const note = away ? 'out_of_office' : usable.dateOverrides?.some((o) => o.date === date) ? 'override' : undefined;
    days.push({ date, weekday, working: w, blocks: b, ...(note ? { note } : {}) });
    cursor = day.end;
  }
  return { time_zone: timeZone, days, issues, working_hours_configured: !!workingHours };
}

const DAY_NAMES: Record<string, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };
const DAY_INDEX = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

function ordinal(n: number): string {
  if (n === -1) return 'last';
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return n < 0 ? `${ordinal(-n)} to last` : `${n}${s}`;
}

function list(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * A hard block in plain words, e.g. "Every Monday and Wednesday, 12:00-13:00"
 * or "Every 2nd Tuesday of the month, 14:00-15:00". Unreadable rules answer
 * with the parser's complaint.
 */
export function describeHardBlock(block: HardBlockJson): string {
  if ('days' in block) {
    const names = DAY_INDEX.filter((d) => block.days.includes(d)).map((d) => DAY_NAMES[d]);
    const days = names.length === 7 ? 'Every day' : names.length === 5 && !block.days.includes('sat') && !block.days.includes('sun') ? 'Every weekday' : `Every ${list(names)}`;
    return `${days}, ${block.start}-${block.end}`;
  }
  let rule;
  try {
    rule = parseRRule(block.rrule);
  } catch (err) {
    if (err instanceof RRuleError) return `Unreadable rule: ${err.message}`;
    throw err;
  }
  const m = /T(\d{2}):(\d{2})/.exec(block.dtstart);
  const startMin = m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  const endMin = (startMin + block.duration_minutes) % 1440;
  const time = `${clock(startMin)}-${clock(endMin)}`;
  const every = (unit: string) => (rule.interval === 1 ? `Every ${unit}` : `Every ${rule.interval} ${unit}s`);
  const byDay = rule.byDay ?? [];
  let what: string;
  if (rule.freq === 'DAILY') what = every('day');
  else if (rule.freq === 'WEEKLY') {
    const names = byDay.map((d) => DAY_NAMES[DAY_INDEX[d.weekday]]);
    what = names.length ? `${every('week')} on ${list(names)}` : every('week');
    if (rule.interval === 1 && names.length) what = `Every ${list(names)}`;
  } else if (byDay.some((d) => d.ordinal !== 0)) {
    const names = byDay.map((d) => `${ordinal(d.ordinal)} ${DAY_NAMES[DAY_INDEX[d.weekday]]}`);
    what = `${rule.interval === 1 ? 'Every' : `Every ${rule.interval} months, the`} ${list(names)}${rule.interval === 1 ? ' of the month' : ''}`;
  } else if (rule.byMonthDay?.length) {
    what = `${every('month')} on day ${list(rule.byMonthDay.map(String))}`;
  } else what = every('month');
  const ends = rule.count ? `, ${rule.count} times` : rule.until ? ', until a set date' : '';
  return `${what}, ${time}${ends} (from ${block.dtstart.slice(0, 10)})`;
}
