/**
 * Command-line options of bench/availability.ts and the fixed scenario every run measures: owner
 * profiles, schedule rules, the calendar of the run (the coming year from next Monday) and the two
 * searched windows 10 weeks in.
 */
import os from 'node:os';
import path from 'node:path';
import { Temporal } from 'temporal-polyfill';
import type { HardBlockJson, WorkingHoursJson } from '@/db/schema';
import type { AvailabilityInput } from '@/server/domain/claims';

// ---------------------------------------------------------------------------------------------
// Command line

export const ROOT = path.resolve(__dirname, '..', '..');
export const ARGV = process.argv.slice(2);
const flag = (name: string) => ARGV.includes(`--${name}`);
const opt = (name: string) => ARGV.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

export const QUICK = flag('quick');
const ITER72 = Number(opt('iter72') ?? (QUICK ? 50 : 300));
const ITER31 = Number(opt('iter31') ?? (QUICK ? 20 : 100));
export const RUN_PG = !flag('no-pg');
export const RUN_PGLITE = !flag('no-pglite');
export const RUN_HTTP = !flag('no-http') && RUN_PG;
export const RUN_PHASES = !flag('no-phases');
export const RUN_BUFFERS = !flag('no-buffers');
export const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
export const KEEP = flag('keep');
export const WAIT_IDLE_S = Number(opt('wait-idle') ?? 0);
/** HTTP server: a running one (--base-url), this checkout (--in-place, --no-build) or a staged copy (--reuse-build). */
export const BASE_URL = opt('base-url');
export const IN_PLACE = flag('in-place');
export const NO_BUILD = flag('no-build');
export const REUSE_BUILD = flag('reuse-build');

export const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
export const MIGRATIONS = path.join(ROOT, 'db', 'migrations');
export const STAGE_DIR = path.join(os.tmpdir(), 'agent-scheduler-bench-app');

// ---------------------------------------------------------------------------------------------
// Scenario

export const TZ = 'Europe/Berlin';
export const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** searchAvailability loads the claims of the window plus this margin either side (daily limits). */
export const DAY_MARGIN = 26 * HOUR;
export const TARGET_P99 = { '72h': 25, '31d': 100 } as const;
export const SEARCH_CLASS = 'bench-search';
/** The searching class again (same priority and policy) with buffers: the buffered comparison (availability/buffers.ts). */
export const BUFFERED_CLASS = 'bench-search-buffered';
export const BUFFERS = { before: 15, after: 10 } as const;
/** A buffered search may take at most this many times the same search without buffers (issue 39). */
export const TARGET_BUFFER_RATIO = 1.2;
export const KEY_BUDGET = 250; // requests per API key (availabilitySearch allows 300 per key per minute)

export type WindowName = '72h' | '31d';
export const WINDOW_NAMES: WindowName[] = ['72h', '31d'];
export type OwnerProfile = { name: string; email: string; total: number; dailyLimitHours: number; quietAroundWindows: boolean };

export const PROFILES: OwnerProfile[] = [
  { name: '2k', email: 'owner-2k@bench.example', total: 2_000, dailyLimitHours: 5, quietAroundWindows: false },
  { name: '20k', email: 'owner-20k@bench.example', total: 20_000, dailyLimitHours: 11, quietAroundWindows: false },
  { name: '20k*', email: 'owner-20k-bg@bench.example', total: 20_000, dailyLimitHours: 5, quietAroundWindows: true },
];

export const WORKING_HOURS: WorkingHoursJson = {
  mon: [{ start: '09:00', end: '17:00' }],
  tue: [{ start: '09:00', end: '17:00' }],
  wed: [{ start: '09:00', end: '17:00' }],
  thu: [{ start: '09:00', end: '17:00' }],
  fri: [{ start: '09:00', end: '17:00' }],
  sat: [],
  sun: [],
};

// Calendar of the run: the coming year (from next Monday), windows 10 weeks in.
const today = Temporal.Now.plainDateISO(TZ);
export const yearStart = today.add({ days: 8 - today.dayOfWeek }); // next Monday (never today)
export const YEAR_DAYS = 365;
const windowMonday = yearStart.add({ weeks: 10 });
export const localMs = (d: Temporal.PlainDate, hhmm = '00:00') =>
  d.toZonedDateTime({ timeZone: TZ, plainTime: Temporal.PlainTime.from(hhmm) }).epochMilliseconds;
const W_START = localMs(windowMonday);
export const WINDOWS: Record<WindowName, { start: number; end: number }> = {
  '72h': { start: W_START, end: W_START + 72 * HOUR },
  '31d': { start: W_START, end: W_START + 31 * DAY },
};
export const HARD_BLOCKS: HardBlockJson[] = [
  { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00', label: 'lunch' },
  { rrule: 'FREQ=WEEKLY;BYDAY=WE', dtstart: `${yearStart.add({ days: 2 }).toString()}T15:00`, duration_minutes: 60, label: 'team sync' },
  { rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', dtstart: `${yearStart.toString()}T09:00`, duration_minutes: 90, label: 'month close' },
];

export const iterationsOf = (w: WindowName) => (w === '72h' ? ITER72 : ITER31);
export const warmupOf = (w: WindowName) => Math.ceil(iterationsOf(w) / 10) + 10;

/** The search every mode runs: duration 30 min, 15 min step, max_results 500 (the whole window is scanned). */
export function searchInput(profile: OwnerProfile, w: WindowName, meetingClass = SEARCH_CLASS): AvailabilityInput {
  return {
    ownerEmail: profile.email,
    meetingClass,
    durationMinutes: 30,
    window: { start: new Date(WINDOWS[w].start), end: new Date(WINDOWS[w].end) },
    stepMinutes: 15,
    maxResults: 500,
  };
}
