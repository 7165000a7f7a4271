/**
 * Collective search benchmark (issue 25; docs/groups.md "Collective search"): p99 of a search over
 * 10 owners (owner_emails) against the p99 of a one-owner search of one of them, same run, same
 * windows. Target: collective p99 <= 2x single p99, for 72 h and 31-day windows, in-process and over HTTP.
 *
 *   npx tsx bench/collective-search.ts            full run (writes its section of docs/benchmarks.md, "Collective search")
 *   npx tsx bench/collective-search.ts --quick    fewer iterations (no docs unless --docs)
 *
 * Scenario: one fresh customer, 10 owners in Europe/Berlin with the availability benchmark's rules
 * (Mon-Fri 09:00-17:00, lunch block, two RRULE blocks, daily limit 5 h) and 2,000 confirmed bookings
 * each over the working days of the coming year, from the availability benchmark's generator with a
 * different seed per owner (bench/availability/seed.ts, class mix 70 % preemptable, 15 % sacred
 * customer meetings, 10 % provider, 5 % exec). Windows: bench/availability/options.ts's (72 h and
 * 31 days, 10 weeks in). Search: 30 min, step 15, max_results 500 (the whole window is walked).
 *
 * Each window runs its single-owner and collective searches interleaved (single, collective,
 * single, ...), so both see the same machine; the naive way (10 one-owner searches and an
 * intersection) is timed too, in-process, for reference. Phases in-process, timed inside the two
 * searches (their SearchClock): look-ups, fact load, grid walk, answer or refusal (reasons,
 * next_available), and the rest.
 *
 * Options: --quick, --iter72=N --iter31=N, --no-http, --docs/--no-docs, --keep, --wait-idle=S,
 *   --reuse-build / --in-place / --no-build / --base-url=URL (as bench/availability.ts; the staged copy
 *   lives in $TMPDIR/agent-scheduler-bench-collective).
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench).
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { openPostgres } from '@/db/drivers/postgres';
import { calendars } from '@/db/schema';
import { mintApiKey } from '@/server/domain/agentService';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { searchAvailability, searchGroupAvailability, type AvailabilityInput, type GroupAvailabilityInput, type SearchClock, type SearchPhase } from '@/server/domain/claims';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { DomainError } from '@/server/domain/errors';
import { createOwner, putScheduleRules } from '@/server/domain/ownerService';
import type { AgentActor } from '@/server/domain/access';
import { requestJson } from './lib/httpClient';
import { busyBetween, cpuMark, ensureDatabase, fmt, loadAvg, log, machineLine, stats, textTable, vacuumTables, waitIdle, type Stats } from './lib/measure';
import { writeBenchSection, type BenchRun, type Figure } from './lib/benchDoc';
import { prepareApp, startServer, stopServer } from './lib/nextServer';
import { cleanup, createClasses, generate, insertBookings } from './availability/seed';
import { HARD_BLOCKS, MIGRATIONS, PROFILES, ROOT, SEARCH_CLASS, TZ, WINDOW_NAMES, WINDOWS, WORKING_HOURS, type WindowName } from './availability/options';

const ARGV = process.argv.slice(2);
const flag = (name: string) => ARGV.includes(`--${name}`);
const opt = (name: string) => ARGV.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = flag('quick');
const ITER: Record<WindowName, number> = { '72h': Number(opt('iter72') ?? (QUICK ? 40 : 300)), '31d': Number(opt('iter31') ?? (QUICK ? 15 : 200)) };
const warmupOf = (w: WindowName) => Math.ceil(ITER[w] / 10) + 10;
const RUN_HTTP = !flag('no-http');
const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
const KEEP = flag('keep');
const WAIT_IDLE_S = Number(opt('wait-idle') ?? 0);
const BASE_URL = opt('base-url');
const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const STAGE_DIR = path.join(os.tmpdir(), 'agent-scheduler-bench-collective');
const OWNERS = 10;
const RATIO_TARGET = 2;
const KEY_BUDGET = 250; // requests per API key (availabilitySearch allows 300 per key per minute)
const PROFILE = PROFILES[0]; // 2,000 bookings, daily limit 5 h

type Seeded = { customerId: string; agentId: string; actor: AgentActor; emails: string[]; events: number[] };

async function seed(db: Db): Promise<Seeded> {
  const boot = await bootstrapCustomer(db, `bench collective ${new Date().toISOString()}`);
  const cid = boot.customer_id;
  const classes = await createClasses(db, cid);
  const emails: string[] = [];
  const events: number[] = [];
  for (let i = 0; i < OWNERS; i++) {
    const email = `member-${i}@collective.bench.example`;
    const owner = await createOwner(db, cid, { email, name: `Member ${i}`, time_zone: TZ });
    await putScheduleRules(db, cid, email, { working_hours: WORKING_HOURS, hard_blocks: HARD_BLOCKS, max_daily_meeting_hours: PROFILE.dailyLimitHours }, new Date());
    const [cal] = await db.select({ id: calendars.id }).from(calendars).where(eq(calendars.ownerId, owner.id));
    events.push(await insertBookings(db, { customerId: cid, ownerId: owner.id, calendarId: cal.id, agentId: boot.agent_id, classes, label: `m${i}` }, generate(PROFILE, i + 1)));
    emails.push(email);
  }
  await db.execute(sql`analyze claims`);
  return { customerId: cid, agentId: boot.agent_id, actor: await authenticateApiKey(db, boot.api_key, new Date()), emails, events };
}

const common = (w: WindowName) => ({
  meetingClass: SEARCH_CLASS,
  durationMinutes: 30,
  window: { start: new Date(WINDOWS[w].start), end: new Date(WINDOWS[w].end) },
  stepMinutes: 15,
  maxResults: 500,
});
const singleInput = (s: Seeded, w: WindowName): AvailabilityInput => ({ ...common(w), ownerEmail: s.emails[0] });
const groupInput = (s: Seeded, w: WindowName): GroupAvailabilityInput => ({ ...common(w), ownerEmails: s.emails });

/** A search's slot starts, or "409" when it found none (NO_SLOTS_AVAILABLE is a valid answer, timed like the others). */
async function slotsOrNone(fn: () => Promise<{ slots: { start: string }[] }>): Promise<string[]> {
  try {
    return (await fn()).slots.map((s) => s.start);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NO_SLOTS_AVAILABLE') return [];
    throw err;
  }
}

type Row = { mode: string; window: WindowName; kind: string; slots: string; stats: Stats; ratio: number | null; busy: number | null };

/** Warm-up, then `n` rounds timing each of `fns` once per round (order alternating), so they share the machine's state. */
async function interleaved(n: number, warmup: number, fns: (() => Promise<unknown>)[]): Promise<number[][]> {
  for (let i = 0; i < warmup; i++) for (const f of fns) await f();
  const out = fns.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    const order = i % 2 === 0 ? fns.map((_, k) => k) : fns.map((_, k) => fns.length - 1 - k);
    for (const k of order) {
      const t0 = performance.now();
      await fns[k]();
      out[k].push(performance.now() - t0);
    }
  }
  return out;
}

const quiet = async <T>(p: Promise<T>): Promise<T | null> => {
  try {
    return await p;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NO_SLOTS_AVAILABLE') return null;
    throw err;
  }
};

async function benchInProcess(db: Db, s: Seeded): Promise<Row[]> {
  const rows: Row[] = [];
  for (const w of WINDOW_NAMES) {
    const single = () => quiet(searchAvailability(db, s.actor, singleInput(s, w), new Date()));
    const group = () => quiet(searchGroupAvailability(db, s.actor, groupInput(s, w), new Date()));
    const naive = async () => {
      const lists = await Promise.all(s.emails.map((e) => slotsOrNone(() => searchAvailability(db, s.actor, { ...singleInput(s, w), ownerEmail: e }, new Date()))));
      return lists[0].filter((t) => lists.every((l) => l.includes(t)));
    };
    const singleSlots = await slotsOrNone(() => searchAvailability(db, s.actor, singleInput(s, w), new Date()));
    const groupSlots = await slotsOrNone(() => searchGroupAvailability(db, s.actor, groupInput(s, w), new Date()));
    const naiveSlots = await naive();
    if (groupSlots.join() !== naiveSlots.join()) throw new Error(`collective search and the naive intersection disagree (${w}): ${groupSlots.length} vs ${naiveSlots.length}`);
    await waitIdle(WAIT_IDLE_S);
    const mark = cpuMark();
    const [a, b] = await interleaved(ITER[w], warmupOf(w), [single, group]);
    const busy = busyBetween(mark, cpuMark());
    const sa = stats(a);
    const sb = stats(b);
    rows.push({ mode: 'in-process PostgreSQL', window: w, kind: 'single owner', slots: String(singleSlots.length), stats: sa, ratio: null, busy });
    rows.push({ mode: 'in-process PostgreSQL', window: w, kind: `collective ${OWNERS}`, slots: String(groupSlots.length), stats: sb, ratio: sb.p99 / sa.p99, busy });
    const [c] = await interleaved(Math.max(10, Math.floor(ITER[w] / 5)), 3, [naive]);
    const sc = stats(c);
    rows.push({ mode: 'in-process PostgreSQL', window: w, kind: `naive: ${OWNERS} searches + intersection`, slots: String(naiveSlots.length), stats: sc, ratio: sc.p99 / sa.p99, busy: null });
    log(`  in-process ${w}: single p99 ${fmt(sa.p99)}, collective p99 ${fmt(sb.p99)} (x${(sb.p99 / sa.p99).toFixed(2)}), naive p99 ${fmt(sc.p99)} ms`);
  }
  return rows;
}

const PHASES: SearchPhase[] = ['look-ups', 'fact load', 'grid walk', 'answer', 'reasons', 'next_available'];
type PhaseRow = { window: WindowName; search: string; phases: Record<SearchPhase, Stats>; other: Stats; whole: Stats };

/**
 * Phases of the searches themselves (searchAvailability and searchGroupAvailability, timed by
 * their SearchClock: server/domain/claims/searchClock.ts), single and collective interleaved;
 * `other` is each run's whole time less its phases (checks, promise hops, the refusal's error).
 */
async function benchPhases(db: Db, s: Seeded): Promise<PhaseRow[]> {
  const out: PhaseRow[] = [];
  for (const w of WINDOW_NAMES) {
    const searches: { name: string; run: (clock: SearchClock) => Promise<unknown> }[] = [
      { name: 'single owner', run: (clock) => quiet(searchAvailability(db, s.actor, singleInput(s, w), new Date(), clock)) },
      { name: `collective ${OWNERS}`, run: (clock) => quiet(searchGroupAvailability(db, s.actor, groupInput(s, w), new Date(), clock)) },
    ];
    const t = searches.map(() => ({ phases: Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<SearchPhase, number[]>, other: [] as number[], whole: [] as number[] }));
    for (let i = 0; i < warmupOf(w) + ITER[w]; i++) {
      const order = i % 2 ? [1, 0] : [0, 1];
      for (const k of order) {
        const parts = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<SearchPhase, number>;
        const t0 = performance.now();
        await searches[k].run((phase, ms) => (parts[phase] += ms));
        const whole = performance.now() - t0;
        if (i < warmupOf(w)) continue;
        for (const p of PHASES) t[k].phases[p].push(parts[p]);
        t[k].whole.push(whole);
        t[k].other.push(whole - PHASES.reduce((sum, p) => sum + parts[p], 0));
      }
    }
    t.forEach((x, k) => out.push({ window: w, search: searches[k].name, phases: Object.fromEntries(PHASES.map((p) => [p, stats(x.phases[p])])) as Record<SearchPhase, Stats>, other: stats(x.other), whole: stats(x.whole) }));
  }
  return out;
}

async function benchHttp(db: Db, baseUrl: string, s: Seeded): Promise<Row[]> {
  let total = 0;
  for (const w of WINDOW_NAMES) total += 2 * (ITER[w] + warmupOf(w) + 1);
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(total / KEY_BUDGET) + 1; i++) keys.push((await mintApiKey(db, s.customerId, null, s.agentId, `bench-collective-${i}`, new Date())).api_key);
  let sent = 0;
  const post = async (body: Record<string, unknown>) => {
    const key = keys[Math.floor(sent++ / KEY_BUDGET)];
    const res = await requestJson(baseUrl, 'POST', '/v1/availability/search', { authorization: `Bearer ${key}` }, body);
    if (res.status !== 200 && !(res.status === 409 && res.body?.error?.code === 'NO_SLOTS_AVAILABLE')) throw new Error(`HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return res.body as { slots?: { start: string }[] };
  };
  const rows: Row[] = [];
  for (const w of WINDOW_NAMES) {
    const c = common(w);
    const base = { meeting_class: c.meetingClass, duration_minutes: c.durationMinutes, window: { start: c.window.start.toISOString(), end: c.window.end.toISOString() }, slot_step_minutes: c.stepMinutes, max_results: c.maxResults };
    const singleBody = { ...base, owner_email: s.emails[0] };
    const groupBody = { ...base, owner_emails: s.emails };
    const firstGroup = (await post(groupBody)).slots?.map((x) => x.start) ?? [];
    const inProcess = await slotsOrNone(() => searchGroupAvailability(db, s.actor, groupInput(s, w), new Date()));
    if (firstGroup.join() !== inProcess.join()) throw new Error(`HTTP and in-process collective search disagree (${w})`);
    const firstSingle = (await post(singleBody)).slots?.length ?? 0;
    await waitIdle(WAIT_IDLE_S);
    const mark = cpuMark();
    const [a, b] = await interleaved(ITER[w], warmupOf(w), [() => post(singleBody), () => post(groupBody)]);
    const busy = busyBetween(mark, cpuMark());
    const sa = stats(a);
    const sb = stats(b);
    rows.push({ mode: 'HTTP (PostgreSQL)', window: w, kind: 'single owner', slots: String(firstSingle), stats: sa, ratio: null, busy });
    rows.push({ mode: 'HTTP (PostgreSQL)', window: w, kind: `collective ${OWNERS}`, slots: String(firstGroup.length), stats: sb, ratio: sb.p99 / sa.p99, busy });
    log(`  HTTP ${w}: single p99 ${fmt(sa.p99)}, collective p99 ${fmt(sb.p99)} ms (x${(sb.p99 / sa.p99).toFixed(2)})`);
  }
  return rows;
}

const HEADER = ['mode', 'window', 'search', 'slots', 'iter', 'p50 ms', 'p99 ms', 'max ms', 'p99 / single p99', 'target', 'host busy'];
const cells = (r: Row): string[] => [
  r.mode,
  r.window,
  r.kind,
  r.slots,
  String(r.stats.n),
  fmt(r.stats.p50),
  fmt(r.stats.p99),
  fmt(r.stats.max),
  r.ratio === null ? '1' : r.ratio.toFixed(2),
  r.kind.startsWith('collective') ? `${r.ratio! <= RATIO_TARGET ? 'ok' : 'MISSED'} (<= ${RATIO_TARGET}x)` : '',
  r.busy === null ? 'n/a' : `${Math.round(r.busy * 100)} %`,
];
const PHASE_HEADER = ['window', 'search', ...PHASES, 'other', 'whole search', 'sum of p50s'];
const pair = (x: Stats) => (x.max === 0 ? '-' : `${fmt(x.p50)} / ${fmt(x.p99)}`);
const phaseCells = (p: PhaseRow): string[] => [
  p.window,
  p.search,
  ...PHASES.map((k) => pair(p.phases[k])),
  pair(p.other),
  pair(p.whole),
  fmt(PHASES.reduce((sum, k) => sum + p.phases[k].p50, p.other.p50)),
];

/** Where the single-owner and the collective searches differ in what they do (one answers with slots, the other refuses). */
function phaseNotes(rows: Row[]): string[] {
  const notes: string[] = [];
  for (const w of WINDOW_NAMES) {
    const single = rows.find((r) => r.window === w && r.kind === 'single owner' && r.mode.startsWith('in-process'));
    const group = rows.find((r) => r.window === w && r.kind.startsWith('collective') && r.mode.startsWith('in-process'));
    if (!single || !group) continue;
    if (Number(single.slots) > 0 && Number(group.slots) === 0) {
      notes.push(`In the ${w} window the single owner has ${single.slots} slots and answers them; the ten owners share none, so the collective search is a refusal there and pays the reasons per owner and next_available, which the single search never computes.`);
    }
  }
  return notes;
}

async function main(): Promise<void> {
  log(`PostgreSQL: ${BENCH_DB_URL}`);
  await ensureDatabase(BENCH_DB_URL);
  const handle = await openPostgres(BENCH_DB_URL, 10, MIGRATIONS);
  const db = handle.db;
  let seeded: Seeded | null = null;
  const rows: Row[] = [];
  let phases: PhaseRow[] = [];
  const notes: string[] = [];
  let pgVersion = '';
  try {
    const [{ v }] = (await db.execute(sql`select current_setting('server_version') as v`)) as unknown as { v: string }[];
    pgVersion = v;
    const t0 = performance.now();
    seeded = await seed(db);
    await vacuumTables(BENCH_DB_URL);
    await db.execute(sql`checkpoint`);
    log(`  seeded ${OWNERS} owners x ${seeded.events[0]} bookings in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    rows.push(...(await benchInProcess(db, seeded)));
    phases = await benchPhases(db, seeded);
    if (RUN_HTTP) {
      let server: Awaited<ReturnType<typeof startServer>> | null = null;
      try {
        if (!BASE_URL) server = await startServer(prepareApp(ROOT, STAGE_DIR, { reuse: flag('reuse-build'), inPlace: flag('in-place'), noBuild: flag('no-build') }).dir, { DATABASE_URL: BENCH_DB_URL, LOG_LEVEL: 'silent' });
        notes.push(BASE_URL ? `HTTP: running server at ${BASE_URL}` : 'HTTP: production build (next build) served by scripts/serve.mjs from a staged copy of this checkout, in-memory rate limiter, node:http keep-alive client, concurrency 1');
        rows.push(...(await benchHttp(db, BASE_URL ?? server!.baseUrl, seeded)));
      } finally {
        if (server) await stopServer(server.child);
      }
    }
  } finally {
    if (seeded && !KEEP) await cleanup(db, seeded.customerId);
    await handle.close();
  }
  const missed = rows.filter((r) => r.kind.startsWith('collective') && r.ratio! > RATIO_TARGET);
  const info = [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${machineLine()}, load average at the end ${loadAvg()}`,
    `- Node ${process.version}; PostgreSQL ${pgVersion}`,
    `- run: \`npx tsx bench/collective-search.ts${ARGV.length ? ' ' + ARGV.join(' ') : ''}\`${QUICK ? ' (quick)' : ''}`,
    `- windows (Europe/Berlin): 72h from ${new Date(WINDOWS['72h'].start).toISOString()}; 31d to ${new Date(WINDOWS['31d'].end).toISOString()}`,
    ...notes.map((n) => `- ${n}`),
  ];
  console.log('\nCollective search (10 owners x 2,000 bookings) against a single-owner search of one of them');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log(textTable(HEADER, rows.map(cells), 3));
  console.log(textTable(PHASE_HEADER, phases.map(phaseCells), 2));
  console.log(missed.length ? `${missed.length} collective rows miss the 2x target.` : 'All collective rows within 2x of the single-owner p99.');
  for (const n of phaseNotes(rows)) console.log(n);
  if (WRITE_DOCS) writeBenchSection('collective-search', benchRun(rows));
}

/** The section of docs/benchmarks.md: per mode and window, the collective p99 over the single-owner p99. */
function benchRun(rows: Row[]): BenchRun {
  const figures: Figure[] = [];
  for (const mode of ['in-process PostgreSQL', 'HTTP (PostgreSQL)']) {
    for (const w of WINDOW_NAMES) {
      const single = rows.find((r) => r.mode === mode && r.window === w && r.kind === 'single owner');
      const group = rows.find((r) => r.mode === mode && r.window === w && r.kind.startsWith('collective'));
      if (!single || !group) continue;
      figures.push({
        figure: `${w === '72h' ? '72 h' : '31 days'}, ${mode.startsWith('HTTP') ? 'HTTP' : 'in process'}: collective p99 / single-owner p99`,
        target: `<= ${RATIO_TARGET}x`,
        latest: `${fmt(group.stats.p99)} / ${fmt(single.stats.p99)} ms = ${group.ratio!.toFixed(2)}x`,
        met: group.ratio! <= RATIO_TARGET,
      });
    }
  }
  const naive = rows.find((r) => r.window === '31d' && r.kind.startsWith('naive'));
  if (naive) figures.push({ figure: 'the naive way (ten one-owner searches and an intersection), 31 days, in process, p99', latest: `${fmt(naive.stats.p99)} ms (${naive.ratio!.toFixed(2)}x)` });
  return {
    measures:
      'A search over ten owners (`owner_emails`; 2,000 bookings each in the year) against a one-owner search of the first of them, same windows (72 hours, 31 days), timed interleaved in one run, in process on PostgreSQL and over HTTP against the production build. The figure is the collective p99 over the single-owner p99 of the same run.',
    command: 'npx tsx bench/collective-search.ts',
    run: `npx tsx bench/collective-search.ts${ARGV.length ? ' ' + ARGV.join(' ') : ''}`,
    figures,
    notes: [
      ...(QUICK ? ['A quick run: fewer searches than the default, so each p99 is one of the slowest few.'] : []),
      ...phaseNotes(rows),
      'The run prints the phases of both searches (look-ups, fact load, grid walk, answer, reasons, next_available).',
    ],
  };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof DomainError ? `${err.code}: ${err.message}` : err);
    process.exit(1);
  },
);
