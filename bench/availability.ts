/**
 * Availability search benchmark (p50/p99 of POST /v1/availability/search).
 *
 *   npx tsx bench/availability.ts            full run (writes docs/benchmarks.md)
 *   npx tsx bench/availability.ts --quick    fewer iterations (does not write the docs unless --docs)
 *
 * What it measures (duration 30 min, 15 min step, max_results 500, so the whole window is scanned):
 *   - a 72 h window (Mon 00:00 -> Thu 00:00 Europe/Berlin) and a 31-day window starting there,
 *   - for three owners of one fresh customer:
 *       2k     2,000 confirmed bookings spread over the working days of the coming year,
 *       20k    20,000 bookings spread the same way (~77 short bookings per working day),
 *       20k*   20,000 bookings, but the days around the searched windows are exactly the 2k
 *              owner's (so in-window claims equal 2k's and only the claims outside differ:
 *              this isolates "cost must not grow with events outside the window"),
 *   - in-process (searchAvailability called directly) on PostgreSQL and on in-memory PGlite,
 *   - through HTTP against the production server (next build + scripts/serve.mjs) on the same
 *     PostgreSQL, concurrency 1, plain fetch with keep-alive,
 *   - plus a phase split (owner/class/calendar look-ups, claim load, pure slot search) in-process.
 *
 * Owner rules: working hours Mon-Fri 09:00-17:00 Europe/Berlin, a lunch hard block 12:00-13:00,
 * RRULE hard blocks (weekly Wednesday 15:00 60 min, monthly on the 1st 09:00 90 min), a daily limit.
 * Bookings are generated on a grid (07:00-20:00 local on working days, non-overlapping by
 * construction) and inserted in bulk with db.insert(claims).values([...]). Class mix: 70 % a
 * low-priority internal class (preemptable by the search's class), 15 % customer meetings with an
 * accepted external attendee (sacred), 10 % provider-imported (sacred, no class), 5 % an exec class
 * above the search's priority. The generator is seeded, so every run sees the same calendar.
 *
 * Options:
 *   --quick                 50/20 iterations instead of 300/100
 *   --iter72=N --iter31=N   iterations (warm-up is 10 % + 10)
 *   --no-pg --no-pglite --no-http --no-phases
 *   --docs / --no-docs      write (or not) the section in docs/benchmarks.md
 *   --keep                  keep the seeded PostgreSQL rows (default: deleted at the end)
 *   --wait-idle=S           before each measurement wait up to S seconds for the host to be idle
 *                           (other builds/tests on a 2-core machine dominate p99 otherwise); the
 *                           "host busy" column shows how busy both cores were while measuring
 *   HTTP server (default: stage a copy of the repo in $TMPDIR/agent-scheduler-bench-app, with
 *   node_modules hard-linked, `next build` it and start scripts/serve.mjs from there, so the
 *   benchmark neither clobbers nor is clobbered by other builds of .next in the working tree):
 *   --reuse-build           reuse the staged build if it exists (no rsync, no build)
 *   --in-place              build and serve from this checkout (`npm run build`; add --no-build to skip)
 *   --base-url=URL          use a running server instead (it must use BENCH_DATABASE_URL)
 * Environment:
 *   BENCH_DATABASE_URL      default postgres://postgres@127.0.0.1:5432/bench (created when missing)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Db, DbHandle } from '@/db/client';
import { openPglite } from '@/db/drivers/pglite';
import { openPostgres } from '@/db/drivers/postgres';
import { calendars, claims, customers, type AttendeeJson, type HardBlockJson, type WorkingHoursJson } from '@/db/schema';
import type { AgentActor } from '@/server/domain/access';
import { mintApiKey } from '@/server/domain/agentService';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { searchAvailability, type AvailabilityInput } from '@/server/domain/claims/availabilityService';
import { loadClaims, loadTarget, ownerRules } from '@/server/domain/claims/context';
import { requestPolicy } from '@/server/domain/claims/decide';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { DomainError } from '@/server/domain/errors';
import { newId } from '@/server/domain/ids';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { createOwner, putScheduleRules } from '@/server/domain/ownerService';
import { searchSlots } from '@/server/domain/scheduling';
import { busyBetween, cpuMark, ensureDatabase, fmt, log, stats, type Stats } from './lib/measure';
import { startServer, stopServer } from './lib/nextServer';

// ---------------------------------------------------------------------------------------------
// Options

const ROOT = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = flag('quick');
const ITER72 = Number(opt('iter72') ?? (QUICK ? 50 : 300));
const ITER31 = Number(opt('iter31') ?? (QUICK ? 20 : 100));
const RUN_PG = !flag('no-pg');
const RUN_PGLITE = !flag('no-pglite');
const RUN_HTTP = !flag('no-http') && RUN_PG;
const RUN_PHASES = !flag('no-phases');
const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
const KEEP = flag('keep');
const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const MIGRATIONS = path.join(ROOT, 'db', 'migrations');
const STAGE_DIR = path.join(os.tmpdir(), 'agent-scheduler-bench-app');

const TZ = 'Europe/Berlin';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TARGET_P99 = { '72h': 25, '31d': 100 } as const;
const SEARCH_CLASS = 'bench-search';
const KEY_BUDGET = 250; // requests per API key (availabilitySearch allows 300 per key per minute)

type WindowName = '72h' | '31d';
type OwnerProfile = { name: string; email: string; total: number; dailyLimitHours: number; quietAroundWindows: boolean };

const PROFILES: OwnerProfile[] = [
  { name: '2k', email: 'owner-2k@bench.example', total: 2_000, dailyLimitHours: 5, quietAroundWindows: false },
  { name: '20k', email: 'owner-20k@bench.example', total: 20_000, dailyLimitHours: 11, quietAroundWindows: false },
  { name: '20k*', email: 'owner-20k-bg@bench.example', total: 20_000, dailyLimitHours: 5, quietAroundWindows: true },
];

const WORKING_HOURS: WorkingHoursJson = {
  mon: [{ start: '09:00', end: '17:00' }],
  tue: [{ start: '09:00', end: '17:00' }],
  wed: [{ start: '09:00', end: '17:00' }],
  thu: [{ start: '09:00', end: '17:00' }],
  fri: [{ start: '09:00', end: '17:00' }],
  sat: [],
  sun: [],
};

// ---------------------------------------------------------------------------------------------
// Calendar of the run: the coming year (from next Monday), windows 10 weeks in.

const today = Temporal.Now.plainDateISO(TZ);
const yearStart = today.add({ days: 8 - today.dayOfWeek }); // next Monday (never today)
const YEAR_DAYS = 365;
const windowMonday = yearStart.add({ weeks: 10 });
const localMs = (d: Temporal.PlainDate, hhmm = '00:00') =>
  d.toZonedDateTime({ timeZone: TZ, plainTime: Temporal.PlainTime.from(hhmm) }).epochMilliseconds;
const W_START = localMs(windowMonday);
const WINDOWS: Record<WindowName, { start: number; end: number }> = {
  '72h': { start: W_START, end: W_START + 72 * HOUR },
  '31d': { start: W_START, end: W_START + 31 * DAY },
};
const HARD_BLOCKS: HardBlockJson[] = [
  { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00', label: 'lunch' },
  { rrule: 'FREQ=WEEKLY;BYDAY=WE', dtstart: `${yearStart.add({ days: 2 }).toString()}T15:00`, duration_minutes: 60, label: 'team sync' },
  { rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', dtstart: `${yearStart.toString()}T09:00`, duration_minutes: 90, label: 'month close' },
];

// ---------------------------------------------------------------------------------------------
// Booking generator

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind = 'internal' | 'customer' | 'provider' | 'exec';
type GenBooking = { start: number; end: number; kind: Kind };

const SPAN_START = '07:00';
const SPAN_MINUTES = 13 * 60; // 07:00-20:00 local: no DST change inside it

/** k bookings on one working day: the span is cut into equal cells of whole 5 minutes, one booking per cell. */
function dayBookings(day: Temporal.PlainDate, dayIndex: number, k: number, density: string): GenBooking[] {
  if (k <= 0) return [];
  const rand = mulberry32(dayIndex * 7919 + (density === '2k' ? 1 : 2) * 104_729);
  const cell = Math.floor(SPAN_MINUTES / k / 5) * 5;
  if (cell < 5) throw new Error(`too many bookings for one day: ${k}`);
  const durations = cell >= 60 ? [15, 30, 30, 45, 60] : cell >= 30 ? [15, 30] : cell >= 15 ? [10, 15] : [5, 5, 10];
  const fitting = durations.filter((d) => d <= cell);
  const base = localMs(day, SPAN_START);
  const out: GenBooking[] = [];
  for (let j = 0; j < k; j++) {
    const dur = fitting[Math.floor(rand() * fitting.length)];
    const offset = 5 * Math.floor(rand() * ((cell - dur) / 5 + 1));
    const r = rand();
    const kind: Kind = r < 0.7 ? 'internal' : r < 0.85 ? 'customer' : r < 0.95 ? 'provider' : 'exec';
    const start = base + (j * cell + offset) * MINUTE;
    out.push({ start, end: start + dur * MINUTE, kind });
  }
  return out;
}

/** `total` bookings over the working days of the year; with quietAroundWindows, the days within 2 of the windows get the 2k owner's bookings. */
function generate(profile: OwnerProfile): GenBooking[] {
  const days: { day: Temporal.PlainDate; index: number }[] = [];
  for (let i = 0; i < YEAR_DAYS; i++) {
    const day = yearStart.add({ days: i });
    if (day.dayOfWeek <= 5) days.push({ day, index: i });
  }
  const spread = (n: number, count: number, i: number) => Math.floor(((i + 1) * n) / count) - Math.floor((i * n) / count);
  const quietFrom = WINDOWS['31d'].start - 2 * DAY;
  const quietTo = WINDOWS['31d'].end + 2 * DAY;
  const isQuiet = (d: Temporal.PlainDate) => profile.quietAroundWindows && localMs(d) >= quietFrom && localMs(d) < quietTo;
  const out: GenBooking[] = [];
  let quietTotal = 0;
  days.forEach(({ day, index }, i) => {
    if (!isQuiet(day)) return;
    const b = dayBookings(day, index, spread(2_000, days.length, i), '2k');
    quietTotal += b.length;
    out.push(...b);
  });
  const busy = days.filter(({ day }) => !isQuiet(day));
  busy.forEach(({ day, index }, i) => {
    out.push(...dayBookings(day, index, spread(profile.total - quietTotal, busy.length, i), profile.total === 2_000 ? '2k' : '20k'));
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Seeding

type Seeded = {
  customerId: string;
  apiKey: string;
  agentId: string;
  actor: AgentActor;
  owners: { profile: OwnerProfile; ownerId: string; events: number }[];
};

async function seed(db: Db, label: string): Promise<Seeded> {
  const runId = new Date().toISOString();
  const boot = await bootstrapCustomer(db, `bench ${label} ${runId}`);
  const cid = boot.customer_id;
  const classes = {
    internal: await createMeetingClass(db, cid, { name: 'internal', priority: 20 }),
    customer: await createMeetingClass(db, cid, { name: 'customer', priority: 50 }),
    exec: await createMeetingClass(db, cid, { name: 'exec', priority: 90, preempt_policy: 'never' }),
  };
  await createMeetingClass(db, cid, { name: SEARCH_CLASS, priority: 80, preempt_policy: 'preempt_lower' });
  const owners: Seeded['owners'] = [];
  for (const profile of PROFILES) {
    const owner = await createOwner(db, cid, { email: profile.email, name: `Bench ${profile.name}`, time_zone: TZ });
    await putScheduleRules(db, cid, profile.email, { working_hours: WORKING_HOURS, hard_blocks: HARD_BLOCKS, max_daily_meeting_hours: profile.dailyLimitHours }, new Date());
    const [cal] = await db.select({ id: calendars.id }).from(calendars).where(eq(calendars.ownerId, owner.id));
    const gen = generate(profile);
    const createdAt = new Date();
    const rows = gen.map((b, i) => {
      const attendees: AttendeeJson[] = [{ email: `${profile.name.replace('*', 'x')}@bench.example`, response: 'accepted' }];
      if (b.kind === 'customer') attendees.push({ email: `client${i % 97}@customer.example`, name: `Client ${i % 97}`, response: 'accepted', external: true });
      return {
        id: newId(),
        customerId: cid,
        ownerId: owner.id,
        calendarId: cal.id,
        agentId: b.kind === 'provider' ? null : boot.agent_id,
        meetingClassId: b.kind === 'provider' ? null : classes[b.kind].id,
        kind: 'booking' as const,
        status: 'confirmed' as const,
        startAt: new Date(b.start),
        endAt: new Date(b.end),
        source: b.kind === 'provider' ? ('provider' as const) : ('agent' as const),
        title: `${b.kind} meeting`,
        attendees,
        externalAccepted: b.kind === 'customer',
        createdAt,
        updatedAt: createdAt,
      };
    });
    for (let i = 0; i < rows.length; i += 2_000) await db.insert(claims).values(rows.slice(i, i + 2_000));
    owners.push({ profile, ownerId: owner.id, events: rows.length });
  }
  await db.execute(sql`analyze claims`);
  const actor = await authenticateApiKey(db, boot.api_key, new Date());
  return { customerId: cid, apiKey: boot.api_key, agentId: boot.agent_id, actor, owners };
}

async function cleanup(db: Db, customerId: string): Promise<void> {
  // claims.meeting_class_id is ON DELETE RESTRICT: remove the claims before the customer cascade.
  await db.delete(claims).where(eq(claims.customerId, customerId));
  await db.delete(customers).where(eq(customers.id, customerId));
}

// ---------------------------------------------------------------------------------------------
// Measurement

const WAIT_IDLE_S = Number(opt('wait-idle') ?? 0);
/** With --wait-idle=S: wait (at most S seconds) for a 2-second stretch in which the host is <= 20 % busy, so other work on the machine disturbs less. */
async function waitIdle(): Promise<void> {
  if (!WAIT_IDLE_S) return;
  const deadline = Date.now() + WAIT_IDLE_S * 1000;
  while (Date.now() < deadline) {
    const a = cpuMark();
    await new Promise((r) => setTimeout(r, 2000));
    const busy = busyBetween(a, cpuMark());
    if (busy === null || busy <= 0.2) return;
  }
  log(`  (host still busy after waiting ${WAIT_IDLE_S} s; measuring anyway)`);
}

type Row = {
  busy: number | null;
  /** CPU ms per operation of the process doing the work (see CPU_NOTE). */
  cpu: number | null;
  mode: string;
  owner: string;
  window: WindowName;
  inWindow: number;
  loaded: number;
  slots: string;
  stats: Stats;
};

function input(profile: OwnerProfile, w: WindowName): AvailabilityInput {
  return {
    ownerEmail: profile.email,
    meetingClass: SEARCH_CLASS,
    durationMinutes: 30,
    window: { start: new Date(WINDOWS[w].start), end: new Date(WINDOWS[w].end) },
    stepMinutes: 15,
    maxResults: 500,
  };
}

const iterationsOf = (w: WindowName) => (w === '72h' ? ITER72 : ITER31);
const warmupOf = (w: WindowName) => Math.ceil(iterationsOf(w) / 10) + 10;

/** Runs fn `warmup` times, then `n` timed times. `cpu` is this process's CPU ms per timed call; `cpuOf` measures another process instead. */
async function timeLoop(n: number, warmup: number, fn: () => Promise<unknown>, cpuOf?: () => number | null): Promise<{ samples: number[]; cpu: number | null }> {
  for (let i = 0; i < warmup; i++) await fn();
  const readCpu = cpuOf ?? (() => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; });
  const out: number[] = [];
  const c0 = readCpu();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  const c1 = readCpu();
  return { samples: out, cpu: c0 === null || c1 === null ? null : (c1 - c0) / n };
}

/** CPU ms (user + system) consumed so far by another process, from /proc (Linux). */
function processCpuMs(pid: number | undefined): () => number | null {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  return () => {
    if (!pid) return null;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) * tick;
    } catch {
      return null;
    }
  };
}

function slotSummary(slots: { preempts: boolean }[]): string {
  return `${slots.length} (${slots.filter((s) => s.preempts).length} pre)`;
}

async function windowCounts(db: Db, ownerId: string, w: WindowName): Promise<{ inWindow: number; loaded: number }> {
  const { start, end } = WINDOWS[w];
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(claims)
    .where(
      and(
        eq(claims.ownerId, ownerId),
        inArray(claims.status, ['active', 'confirmed']),
        sql`tstzrange(${claims.startAt}, ${claims.endAt}, '[)') && tstzrange(${new Date(start).toISOString()}::timestamptz, ${new Date(end).toISOString()}::timestamptz, '[)')`,
      ),
    );
  const loaded = await loadClaims(db, ownerId, new Date(start - 26 * HOUR), new Date(end + 26 * HOUR), new Date());
  return { inWindow: n, loaded: loaded.length };
}

async function benchInProcess(db: Db, mode: string, seeded: Seeded, counts: Map<string, { inWindow: number; loaded: number }>): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { profile } of seeded.owners) {
    for (const w of ['72h', '31d'] as WindowName[]) {
      const inp = input(profile, w);
      let last: Awaited<ReturnType<typeof searchAvailability>> | null = null;
      await waitIdle();
      const mark = cpuMark();
      const { samples, cpu } = await timeLoop(iterationsOf(w), warmupOf(w), async () => {
        last = await searchAvailability(db, seeded.actor, inp, new Date());
      });
      const c = counts.get(`${profile.name}/${w}`)!;
      rows.push({ busy: busyBetween(mark, cpuMark()), cpu, mode, owner: profile.name, window: w, ...c, slots: slotSummary(last!.slots), stats: stats(samples) });
      log(`  ${mode} ${profile.name} ${w}: p50 ${fmt(rows.at(-1)!.stats.p50)} p99 ${fmt(rows.at(-1)!.stats.p99)} ms`);
    }
  }
  return rows;
}

type PhaseRow = { mode: string; owner: string; window: WindowName; target: Stats; load: Stats; slim: Stats; search: Stats; total: Stats; totalSlim: Stats };

/** The parts of searchAvailability timed on their own: look-ups (meeting class, owner, calendar), claim load (full rows, as decisions load them, and loadClaims, as searches do), pure slot search. */
async function benchPhases(db: Db, mode: string, seeded: Seeded): Promise<PhaseRow[]> {
  const out: PhaseRow[] = [];
  for (const { profile } of seeded.owners) {
    for (const w of ['72h', '31d'] as WindowName[]) {
      const inp = input(profile, w);
      const t: number[] = [], l: number[] = [], sl: number[] = [], s: number[] = [], tot: number[] = [], totSlim: number[] = [];
      const n = Math.max(20, Math.round(iterationsOf(w) / 3));
      await waitIdle();
      for (let i = -5; i < n; i++) {
        const now = new Date();
        const from = new Date(inp.window.start.getTime() - 26 * HOUR);
        const to = new Date(inp.window.end.getTime() + 26 * HOUR);
        const a = performance.now();
        const target = await loadTarget(db, seeded.actor.customerId, inp, false);
        const b = performance.now();
        const loaded = await loadClaims(db, target.owner.id, from, to, now);
        const c = performance.now();
        const slim = await loadClaims(db, target.owner.id, from, to, now);
        const d = performance.now();
        const params = {
          rules: ownerRules(target.owner),
          now: now.getTime(),
          durationMinutes: inp.durationMinutes,
          request: requestPolicy(seeded.actor, target),
          window: { start: inp.window.start.getTime(), end: inp.window.end.getTime() },
          stepMinutes: inp.stepMinutes,
          maxResults: inp.maxResults,
        };
        const r1 = searchSlots({ ...params, claims: loaded });
        const e = performance.now();
        if (i === -5) {
          const r2 = searchSlots({ ...params, claims: slim });
          if (slim.length !== loaded.length || JSON.stringify(r1) !== JSON.stringify(r2)) throw new Error(`slim loader disagrees for ${profile.name} ${w}`);
        }
        if (i < 0) continue;
        t.push(b - a);
        l.push(c - b);
        sl.push(d - c);
        s.push(e - d);
        tot.push(b - a + (c - b) + (e - d));
        totSlim.push(b - a + (d - c) + (e - d));
      }
      out.push({ mode, owner: profile.name, window: w, target: stats(t), load: stats(l), slim: stats(sl), search: stats(s), total: stats(tot), totalSlim: stats(totSlim) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// HTTP

function run(cmd: string, args: string[], cwd: string): void {
  log(`  $ (cd ${cwd} && ${cmd} ${args.join(' ')})`);
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
}

/** The directory holding the production build to serve: a staged copy (default) or this checkout. */
function prepareApp(): string {
  if (flag('in-place')) {
    if (!flag('no-build')) run('npm', ['run', 'build'], ROOT);
    return ROOT;
  }
  const built = fs.existsSync(path.join(STAGE_DIR, '.next', 'BUILD_ID'));
  if (flag('reuse-build') && built) {
    log(`  reusing the staged build in ${STAGE_DIR}`);
    return STAGE_DIR;
  }
  fs.mkdirSync(STAGE_DIR, { recursive: true });
  const excludes = ['node_modules', '.next', '.data', '.git', '.xdg', 'test-results', '.test-results', 'playwright-report', 'tsconfig.tsbuildinfo'];
  run('rsync', ['-a', '--delete', ...excludes.flatMap((e) => ['--exclude', `/${e}`]), `${ROOT}/`, `${STAGE_DIR}/`], ROOT);
  // Turbopack refuses a node_modules symlinked from outside the project: hard-link it (same filesystem, under a second).
  fs.rmSync(path.join(STAGE_DIR, 'node_modules'), { recursive: true, force: true });
  run('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(STAGE_DIR, 'node_modules')], ROOT);
  run('npx', ['next', 'build'], STAGE_DIR);
  return STAGE_DIR;
}

async function benchHttp(db: Db, baseUrl: string, serverPid: number | undefined, seeded: Seeded, counts: Map<string, { inWindow: number; loaded: number }>): Promise<Row[]> {
  // One key per KEY_BUDGET requests keeps every key under the per-key rate limit.
  let total = 0;
  for (const w of ['72h', '31d'] as WindowName[]) total += seeded.owners.length * (iterationsOf(w) + warmupOf(w) + 1);
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(total / KEY_BUDGET) + 1; i++) {
    keys.push((await mintApiKey(db, seeded.customerId, null, seeded.agentId, `bench-http-${i}`, new Date())).api_key);
  }
  let sent = 0;
  const post = async (body: string) => {
    const key = keys[Math.floor(sent++ / KEY_BUDGET)];
    const res = await fetch(`${baseUrl}/v1/availability/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 500)}`);
    return text;
  };
  const rows: Row[] = [];
  for (const { profile } of seeded.owners) {
    for (const w of ['72h', '31d'] as WindowName[]) {
      const body = JSON.stringify({
        owner_email: profile.email,
        meeting_class: SEARCH_CLASS,
        duration_minutes: 30,
        window: { start: new Date(WINDOWS[w].start).toISOString(), end: new Date(WINDOWS[w].end).toISOString() },
        slot_step_minutes: 15,
        max_results: 500,
      });
      const first = JSON.parse(await post(body)) as { slots: { preempts: boolean }[] };
      await waitIdle();
      const mark = cpuMark();
      const { samples, cpu } = await timeLoop(iterationsOf(w), warmupOf(w), () => post(body), processCpuMs(serverPid));
      rows.push({ busy: busyBetween(mark, cpuMark()), cpu, mode: 'HTTP (PostgreSQL)', owner: profile.name, window: w, ...counts.get(`${profile.name}/${w}`)!, slots: slotSummary(first.slots), stats: stats(samples) });
      log(`  HTTP ${profile.name} ${w}: p50 ${fmt(rows.at(-1)!.stats.p50)} p99 ${fmt(rows.at(-1)!.stats.p99)} ms`);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Output

function markdownTable(header: string[], body: string[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 || i === 1 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const r of body) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

function textTable(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i <= 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

const CPU_NOTE =
  'CPU ms/op: CPU time per search of the process doing the work: the bench process for in-process rows (PostgreSQL\'s own CPU not included; PGlite runs inside the process), the server process for HTTP rows; unlike wall times it hardly moves when other work shares the cores.';
const RESULT_HEADER = ['mode', 'owner', 'window', 'claims in window', 'claims loaded', 'slots (preempting)', 'iter', 'mean ms', 'p50 ms', 'p99 ms', 'min ms', 'max ms', 'p99 target', 'CPU ms/op', 'host busy'];
function resultCells(r: Row): string[] {
  const target = TARGET_P99[r.window];
  return [r.mode, r.owner, r.window, String(r.inWindow), String(r.loaded), r.slots, String(r.stats.n), fmt(r.stats.mean), fmt(r.stats.p50), fmt(r.stats.p99), fmt(r.stats.min), fmt(r.stats.max), `${r.stats.p99 <= target ? 'ok' : 'MISSED'} (<= ${target})`, r.cpu === null ? 'n/a' : fmt(r.cpu), r.busy === null ? 'n/a' : `${Math.round(r.busy * 100)} %`];
}
const PHASE_HEADER = ['mode', 'owner', 'window', 'look-ups', 'claim load', 'claim load, search columns', 'pure search', 'sum', 'sum with search-column load'];
function phaseCells(p: PhaseRow): string[] {
  const pair = (s: Stats) => `${fmt(s.p50)} / ${fmt(s.p99)}`;
  return [p.mode, p.owner, p.window, pair(p.target), pair(p.load), pair(p.slim), pair(p.search), pair(p.total), pair(p.totalSlim)];
}

function machineInfo(pgVersion: string | null, pgliteVersion: string): string[] {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${os.cpus().length} cores (\`nproc\` ${execFileSync('nproc').toString().trim()}), ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, load average at the end ${load}`,
    `- Node ${process.version}; PostgreSQL ${pgVersion ?? 'n/a'}; PGlite ${pgliteVersion} (in memory)`,
    `- run: \`npx tsx bench/availability.ts${argv.length ? ' ' + argv.join(' ') : ''}\`${QUICK ? ' (quick: fewer iterations than the targets ask for)' : ''}`,
    `- windows (Europe/Berlin): 72h ${new Date(WINDOWS['72h'].start).toISOString()} -> ${new Date(WINDOWS['72h'].end).toISOString()}; 31d -> ${new Date(WINDOWS['31d'].end).toISOString()}; bookings from ${yearStart.toString()} for ${YEAR_DAYS} days`,
  ];
}

const DOC = path.join(ROOT, 'docs', 'benchmarks.md');
const START_MARK = '<!-- bench:availability:start (generated by bench/availability.ts; do not edit by hand) -->';
const END_MARK = '<!-- bench:availability:end -->';

function writeDocs(section: string): void {
  const block = `${START_MARK}\n${section.trim()}\n${END_MARK}`;
  let doc = fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '# Benchmarks\n\n';
  const a = doc.indexOf('<!-- bench:availability:start');
  const b = doc.indexOf(END_MARK);
  if (a >= 0 && b > a) doc = doc.slice(0, a) + block + doc.slice(b + END_MARK.length);
  else doc = doc.trimEnd() + '\n\n' + block + '\n';
  fs.mkdirSync(path.dirname(DOC), { recursive: true });
  fs.writeFileSync(DOC, doc);
}

// ---------------------------------------------------------------------------------------------
// Main

async function countsFor(db: Db, seeded: Seeded) {
  const counts = new Map<string, { inWindow: number; loaded: number }>();
  for (const o of seeded.owners) for (const w of ['72h', '31d'] as WindowName[]) counts.set(`${o.profile.name}/${w}`, await windowCounts(db, o.ownerId, w));
  return counts;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const phases: PhaseRow[] = [];
  let pgVersion: string | null = null;
  const pgliteVersion = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version as string;
  const notes: string[] = [];
  let seededSummary = '';

  if (RUN_PG) {
    log(`PostgreSQL: ${BENCH_DB_URL}`);
    await ensureDatabase(BENCH_DB_URL);
    const handle: DbHandle = await openPostgres(BENCH_DB_URL, 10, MIGRATIONS);
    const db = handle.db;
    let seeded: Seeded | null = null;
    try {
      const [{ v }] = (await db.execute(sql`select current_setting('server_version') as v`)) as unknown as { v: string }[];
      pgVersion = v;
      const t0 = performance.now();
      seeded = await seed(db, 'pg');
      log(`  seeded ${seeded.owners.map((o) => `${o.profile.name}=${o.events}`).join(', ')} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      seededSummary = seeded.owners.map((o) => `${o.profile.name}: ${o.events} bookings`).join(', ');
      const counts = await countsFor(db, seeded);
      rows.push(...(await benchInProcess(db, 'in-process PostgreSQL', seeded, counts)));
      if (RUN_PHASES) phases.push(...(await benchPhases(db, 'PostgreSQL', seeded)));
      if (RUN_HTTP) {
        let server: Awaited<ReturnType<typeof startServer>> | null = null;
        const baseUrl = opt('base-url');
        try {
          if (!baseUrl) server = await startServer(prepareApp(), { DATABASE_URL: BENCH_DB_URL, LOG_LEVEL: 'silent' });
          notes.push(baseUrl ? `HTTP: running server at ${baseUrl}` : `HTTP: production build served by ${fs.existsSync(path.join(ROOT, 'scripts', 'serve.mjs')) ? 'scripts/serve.mjs' : 'next start'} from ${flag('in-place') ? 'this checkout' : 'a staged copy of this checkout'}, in-memory rate limiter, fetch with keep-alive, concurrency 1; times include JSON encoding and reading the body`);
          rows.push(...(await benchHttp(db, baseUrl ?? server!.baseUrl, server?.child.pid, seeded, counts)));
        } finally {
          if (server) await stopServer(server.child);
        }
      }
    } finally {
      if (seeded && !KEEP) await cleanup(db, seeded.customerId);
      await handle.close();
    }
  }

  if (RUN_PGLITE) {
    log('PGlite (in memory)');
    const handle = await openPglite(undefined, MIGRATIONS);
    try {
      const t0 = performance.now();
      const seeded = await seed(handle.db, 'pglite');
      log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const counts = await countsFor(handle.db, seeded);
      rows.push(...(await benchInProcess(handle.db, 'in-process PGlite', seeded, counts)));
      if (RUN_PHASES) phases.push(...(await benchPhases(handle.db, 'PGlite', seeded)));
    } finally {
      await handle.close();
    }
  }

  const order = (r: Row) => ['in-process PostgreSQL', 'in-process PGlite', 'HTTP (PostgreSQL)'].indexOf(r.mode) * 10 + (r.window === '72h' ? 0 : 5) + PROFILES.findIndex((p) => p.name === r.owner);
  rows.sort((a, b) => order(a) - order(b));
  phases.sort((a, b) => (a.mode === b.mode ? 0 : a.mode === 'PostgreSQL' ? -1 : 1) || (a.window === b.window ? 0 : a.window === '72h' ? -1 : 1));

  const info = machineInfo(pgVersion, pgliteVersion);
  const missed = rows.filter((r) => r.stats.p99 > TARGET_P99[r.window]);
  console.log('\nAvailability search: duration 30 min, step 15 min, max_results 500 (times in ms)');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log('');
  console.log(textTable(RESULT_HEADER, rows.map(resultCells)));
  console.log(CPU_NOTE);
  console.log('host busy: share of all cores busy while measuring, this process and PostgreSQL included (a concurrency-1 run alone uses ~1 core)');
  if (phases.length) {
    console.log('\nPhases in-process (ms, p50 / p99): look-ups = meeting class + owner + calendar queries; claim load = loadClaims (window +-26 h);');
    console.log('search columns = loadClaims, the same query selecting only the columns the search needs (what searches use since the fix); pure search = searchSlots');
    console.log(textTable(PHASE_HEADER, phases.map(phaseCells)));
  }
  console.log(`\n${missed.length === 0 ? 'All p99 targets met.' : `${missed.length} of ${rows.length} rows miss their p99 target.`}`);

  if (WRITE_DOCS) {
    const section = [
      '## Availability search',
      '',
      'Generated by `npx tsx bench/availability.ts` (PostgreSQL in `BENCH_DATABASE_URL`, default',
      '`postgres://postgres@127.0.0.1:5432/bench`, created if missing; rows are deleted at the end).',
      'Search: duration 30 min, 15 min step, `max_results` 500 (the whole window is scanned), meeting class',
      'priority 80 with `preempt_lower` and an agent holding `preempt`, so busy time held by lower-priority,',
      'non-sacred bookings still yields (preempting) slots. Targets: 72 h p99 <= 25 ms, 31 days p99 <= 100 ms.',
      '',
      ...info,
      `- owners (${seededSummary}); 20k* has 20,000 bookings in the year but the 2k owner's bookings on the days around the windows`,
      ...notes.map((n) => `- ${n}`),
      '',
      markdownTable(RESULT_HEADER, rows.map(resultCells)),
      '',
      CPU_NOTE,
      '',
      '"host busy": share of all cores busy while the row was measured, this benchmark and PostgreSQL included',
      `(a concurrency-1 run alone keeps about one of the ${os.cpus().length} cores busy; more means other work on the machine).`,
      '',
      ...(phases.length
        ? [
            'Phases, in-process (ms, p50 / p99): look-ups = meeting class, owner and calendar queries; claim load =',
            '`loadClaims` over the window +-26 h (full rows, as decisions load them); search columns = `loadClaims`, the',
            'same query selecting only the ten columns the search needs (what searches use since the fix; it is checked to give the same',
            'slots); pure search = `searchSlots` on the loaded claims.',
            '',
            markdownTable(PHASE_HEADER, phases.map(phaseCells)),
            '',
          ]
        : []),
      missed.length === 0 ? 'All p99 targets met in this run.' : `${missed.length} of ${rows.length} rows miss their p99 target in this run.`,
    ].join('\n');
    writeDocs(section);
    log(`\nwrote ${path.relative(ROOT, DOC)}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof DomainError ? `${err.code}: ${err.message}` : err);
    process.exit(1);
  },
);
