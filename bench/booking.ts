/**
 * Booking throughput benchmark (POST /v1/bookings and createBooking).
 *
 *   npx tsx bench/booking.ts            full run, about 4 minutes (writes docs/benchmarks.md)
 *   npx tsx bench/booking.ts --quick    3-second measurements (does not write the docs unless --docs)
 *
 * What it measures, in one run, on one fresh customer in BENCH_DATABASE_URL:
 *   1. createBooking() called in-process by 16 concurrent callers (pool of 16 connections) on 64
 *      owners, with the REST wrapper's Idempotency-Key bookkeeping (beginIdempotent before,
 *      completeIdempotent after, as server/http/handler.ts does) and without it; and, right
 *      after each, pgbench with 16 clients running the same SQL statements (-M prepared).
 *      Plus a prototype of the proposed fix (drizzle on named prepared statements,
 *      bench/lib/preparedPostgres.ts).
 *   2. HTTP: the production build (staged copy, scripts/serve.mjs) on PostgreSQL + Redis with
 *      TRUST_PROXY=1, autocannon with 32 connections on POST /v1/bookings (Idempotency-Key on
 *      every request, API keys rotated every 100 requests to stay under 120/min per key), then on
 *      GET /v1/notifications (the full wrapper and one cheap query; a random X-Forwarded-For per
 *      request so the 600/min per-IP limit does not cap it).
 *   3. Peak RSS of the server process (VmRSS sampled every 100 ms, and VmHWM).
 *   4. The in-process benchmark (with Idempotency-Key) on embedded PGlite in memory.
 *
 * Slots never collide: every booking takes the next index of one global counter (pgbench:
 * index = per-client counter * clients + client_id) and a uniformly random owner; slot i is
 * [base + 5 min * i, +5 min). Owners work 00:00-24:00 every day (Europe/Berlin), no hard blocks,
 * no daily limit, so every request is accepted; a 409 means the slot generation is wrong. With
 * 64 owners, each booking finds about 98 h * 12 / 64 = 18 earlier claims of its owner in the
 * +-98 h it loads (the script checks this on a sample).
 *
 * Options:
 *   --quick                 3 s measurements, 1 s warm-up
 *   --duration=S            main measurements (default 20); --variant-duration=S the no-key and
 *                           prototype rows (default half)
 *   --clients=N --owners=N --http-connections=N    (16, 64, 32)
 *   --no-tx (no in-process/pgbench rows) --no-pgbench --no-variants --no-http --no-pglite
 *   --docs / --no-docs      write (or not) the section in docs/benchmarks.md
 *   --keep                  keep the PostgreSQL rows (default: deleted at the end)
 *   --wait-idle=S           before each measurement wait up to S s for the host to be idle
 *   --reuse-build           reuse the staged build in $TMPDIR/agent-scheduler-bench-booking-app
 *   --in-place [--no-build] build and serve from this checkout instead
 *   --server-prof=DIR       run the HTTP server with --cpu-prof into DIR
 * Environment:
 *   BENCH_DATABASE_URL      default postgres://postgres@127.0.0.1:5432/bench (created when missing)
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { eq, sql } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Db, DbHandle } from '@/db/client';
import { openPglite } from '@/db/drivers/pglite';
import { openPostgres } from '@/db/drivers/postgres';
import { calendars, claims, customers, owners, type WorkingHoursJson } from '@/db/schema';
import type { AgentActor } from '@/server/domain/access';
import { mintApiKey } from '@/server/domain/agentService';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { INSERT_AUDIT } from '@/server/domain/claims/audit';
import { createBooking } from '@/server/domain/claims/bookingService';
import { AROUND_BY_EMAIL, EXPIRE_BY_EMAIL, INSERT_CLAIM, MADE_WITH_KEY } from '@/server/domain/claims/claimStore';
import { ARBITRATION_MARGIN_MS, targetStatement } from '@/server/domain/claims/context';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { DomainError } from '@/server/domain/errors';
import { newId } from '@/server/domain/ids';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { beginIdempotent, CLAIM_KEY, COMPLETE_KEY, completeIdempotent, releaseIdempotent, requestFingerprint } from '@/server/http/idempotency';
import {
  busyBetween,
  cpuMark,
  ensureDatabase,
  fmt,
  loadAvg,
  log,
  machineLine,
  markdownTable,
  postgresCpuByPid,
  processCpuMs,
  sampleMemory,
  selfCpuMs,
  stats,
  textTable,
  waitIdle,
  writeMarkedSection,
  type CpuMark,
  type Stats,
} from './lib/measure';
import { prepareApp, startServer, stopServer, type RunningServer } from './lib/nextServer';
import { rawBooking } from './lib/rawBooking';
import postgres from 'postgres';

// autocannon ships no types; the few fields used are typed below.
const autocannon = createRequire(__filename)('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;
type AutocannonResult = {
  duration: number;
  requests: { total: number; average: number; sent: number };
  latency: { p50: number; p99: number; average: number; max: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
};

// ---------------------------------------------------------------------------------------------
// Options

const ROOT = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = flag('quick');
const DURATION_S = Number(opt('duration') ?? (QUICK ? 3 : 20));
const VARIANT_S = Number(opt('variant-duration') ?? (QUICK ? 3 : Math.max(3, Math.round(DURATION_S / 2))));
const WARMUP_S = QUICK ? 1 : 2;
const CLIENTS = Number(opt('clients') ?? 16);
const OWNERS = Number(opt('owners') ?? 64);
const HTTP_CONNECTIONS = Number(opt('http-connections') ?? 32);
const RUN_TX = !flag('no-tx');
const RUN_PGBENCH = !flag('no-pgbench');
const RUN_VARIANTS = !flag('no-variants');
const RUN_HTTP = !flag('no-http');
const RUN_PGLITE = !flag('no-pglite');
const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
const KEEP = flag('keep');
const WAIT_IDLE_S = Number(opt('wait-idle') ?? 0);
const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const MIGRATIONS = path.join(ROOT, 'db', 'migrations');
const STAGE_DIR = path.join(os.tmpdir(), 'agent-scheduler-bench-booking-app');
const WORK_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-booking-'));

const TARGET_RATIO = 0.5;
const TARGET_RSS_MB = 350;
const TZ = 'Europe/Berlin';
const CLASS = 'bench-booking';
const SLOT_MS = 5 * 60_000; // slot length = slot step: consecutive indices touch, never overlap
const PER_KEY = 100; // requests per API key (bookings allow 120 per key per minute)
const ALL_DAY: WorkingHoursJson = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]])) as WorkingHoursJson;

// Slots start on the Monday after next (local midnight) and run forward from there.
const today = Temporal.Now.plainDateISO(TZ);
const BASE_MS = today.add({ days: 15 - today.dayOfWeek }).toZonedDateTime({ timeZone: TZ }).epochMilliseconds;
const slotStart = (i: number) => BASE_MS + i * SLOT_MS;
const ownerEmail = (tag: string, i: number) => `${i}@${tag}.bench.example`;
/** Slots pre-filled before each measurement: 98 h of 5-minute slots, the +-98 h a booking loads behind it. */
const PREFILL = 1200;

// ---------------------------------------------------------------------------------------------
// Seeding

type Seeded = { customerId: string; agentId: string; classId: string; actor: AgentActor; apiKey: string };

async function seedCustomer(db: Db, label: string): Promise<Seeded> {
  const boot = await bootstrapCustomer(db, `bench booking ${label} ${new Date().toISOString()}`);
  const mc = await createMeetingClass(db, boot.customer_id, { name: CLASS, priority: 50 });
  const actor = await authenticateApiKey(db, boot.api_key, new Date());
  return { customerId: boot.customer_id, agentId: boot.agent_id, classId: mc.id, actor, apiKey: boot.api_key };
}

/**
 * `n` owners `0@tag...` to `n-1@tag...`, each with its primary internal calendar (as createOwner
 * makes them), and confirmed bookings on slots 0 to PREFILL-1 (random owners, like the measured
 * ones), so the first measured booking already finds the steady-state number of claims around it.
 */
async function seedOwners(db: Db, seeded: Seeded, tag: string, n: number): Promise<string[]> {
  const customerId = seeded.customerId;
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    customerId,
    email: ownerEmail(tag, i),
    name: `Bench ${tag} ${i}`,
    timeZone: TZ,
    workingHours: ALL_DAY,
    hardBlocks: [],
    maxDailyMeetingHours: null,
  }));
  await db.insert(owners).values(rows);
  const cals = rows.map((o) => ({ id: newId(), customerId, ownerId: o.id, type: 'internal', isPrimary: true, status: 'active' as const, displayName: 'Internal' }));
  await db.insert(calendars).values(cals);
  const now = new Date();
  const history = Array.from({ length: PREFILL }, (_, i) => {
    const o = Math.floor(Math.random() * n);
    return {
      id: newId(),
      customerId,
      ownerId: rows[o].id,
      calendarId: cals[o].id,
      agentId: seeded.agentId,
      meetingClassId: seeded.classId,
      kind: 'booking' as const,
      status: 'confirmed' as const,
      startAt: new Date(slotStart(i)),
      endAt: new Date(slotStart(i) + SLOT_MS),
      source: 'agent' as const,
      attendees: [],
      createdAt: now,
      updatedAt: now,
    };
  });
  for (let i = 0; i < history.length; i += 500) await db.insert(claims).values(history.slice(i, i + 500));
  return rows.map((r) => r.id);
}

async function cleanup(db: Db, customerId: string): Promise<void> {
  // claims.meeting_class_id is ON DELETE RESTRICT: remove the claims before the customer cascade.
  await db.delete(claims).where(eq(claims.customerId, customerId));
  await db.delete(customers).where(eq(customers.id, customerId));
}

// ---------------------------------------------------------------------------------------------
// In-process driver

type Row = {
  section: 'tx' | 'http' | 'pglite';
  mode: string;
  idem: string;
  seconds: number;
  ok: number;
  perSecond: number;
  lat: Stats | { p50: number; p99: number };
  errors: string;
  clientCpu: number | null; // ms per operation of the client process (bench, pgbench or server)
  pgCpu: number | null; // ms per operation of all postgres processes
  busy: number | null;
  load: string;
  note?: string;
};

/**
 * Polls CPU counters every 250 ms so rates can be computed over a window even when processes exit
 * at its end: the host and client process counters are read at the window's start (mark(), or the
 * first poll after `from`) and at its last poll; each postgres process counts from its value at the
 * start (0 when it started later) to the last value seen while it lived.
 */
function cpuSampler(pid?: number) {
  type S = { t: number; host: CpuMark; proc: number | null };
  const take = (): S => ({ t: performance.now(), host: cpuMark(), proc: pid ? processCpuMs(pid) : selfCpuMs() });
  let start: S | null = null;
  let last: S | null = null;
  let pgStart: Map<number, number> | null = null;
  const pgSeen = new Map<number, number>();
  let from = Infinity;
  const poll = (force = false) => {
    const s = take();
    if (pid && s.proc === null) return; // the client process has exited
    const pg = postgresCpuByPid();
    if (!start && (force || s.t >= from)) {
      start = s;
      pgStart = pg;
    }
    if (start) {
      last = s;
      for (const [p, ms] of pg) pgSeen.set(p, ms);
    }
  };
  const timer = setInterval(() => poll(), 250);
  return {
    /** The window starts at the first poll at or after `t` (performance.now() time). */
    startAt(t: number) {
      from = t;
    },
    /** The window starts now (in-process: timers may starve while PGlite runs). */
    mark() {
      if (!start) poll(true);
    },
    stop(): { seconds: number; busy: number | null; pgMsPerS: number; procMsPerS: number | null } {
      clearInterval(timer);
      if (!pid) poll();
      const a = start as S | null;
      const b = last as S | null;
      if (!a || !b || b.t <= a.t) return { seconds: 0, busy: null, pgMsPerS: NaN, procMsPerS: null };
      const seconds = (b.t - a.t) / 1000;
      let pg = 0;
      for (const [p, ms] of pgSeen) pg += ms - (pgStart!.get(p) ?? 0);
      return {
        seconds,
        busy: busyBetween(a.host, b.host),
        pgMsPerS: pg / seconds,
        procMsPerS: a.proc !== null && b.proc !== null ? (b.proc - a.proc) / seconds : null,
      };
    },
  };
}

type DriveResult = { seconds: number; ok: number; samples: number[]; errors: Map<string, number>; busy: number | null; pgMsPerS: number; procMsPerS: number | null };

/**
 * `clients` loops calling op(seq) until warm-up + duration has passed; seq comes from one shared
 * counter. Counted: operations finishing inside the measured window; latency samples: those that
 * also started inside it.
 */
async function drive(clients: number, warmupS: number, durationS: number, op: (seq: number) => Promise<void>): Promise<DriveResult> {
  let seq = PREFILL;
  const t0 = performance.now();
  const from = t0 + warmupS * 1000;
  const to = from + durationS * 1000;
  const samples: number[] = [];
  const errors = new Map<string, number>();
  let ok = 0;
  const sampler = cpuSampler();
  sampler.startAt(from);
  let logged = false;
  let marked = false;
  const worker = async () => {
    while (performance.now() < to) {
      const s = performance.now();
      if (!marked && s >= from) {
        marked = true;
        sampler.mark();
      }
      let failed: string | null = null;
      try {
        await op(seq++);
      } catch (err) {
        failed = err instanceof DomainError ? `${err.code}${err.reason ? `/${err.reason}` : ''}` : String((err as Error)?.message ?? err).slice(0, 80);
        if (!logged) log(`    first error: ${err instanceof DomainError ? `${err.code}: ${err.message}` : (err as Error)?.stack ?? err}`);
        logged = true;
      }
      const f = performance.now();
      if (f < from || f > to) continue;
      if (failed) errors.set(failed, (errors.get(failed) ?? 0) + 1);
      else ok++;
      if (s >= from && !failed) samples.push(f - s);
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const cpu = sampler.stop();
  return { seconds: durationS, ok, samples, errors, busy: cpu.busy, pgMsPerS: cpu.pgMsPerS, procMsPerS: cpu.procMsPerS };
}

function bookingOp(db: Db, actor: AgentActor, tag: string, withKey: boolean) {
  return async (seq: number) => {
    const email = ownerEmail(tag, Math.floor(Math.random() * OWNERS));
    const start = new Date(slotStart(seq));
    const end = new Date(slotStart(seq) + SLOT_MS);
    const now = new Date();
    const input = { ownerEmail: email, meetingClass: CLASS, start, end };
    if (!withKey) {
      await createBooking(db, actor, input, now, null);
      return;
    }
    // What the REST wrapper does around the handler when an Idempotency-Key is sent.
    const key = `${tag}-${seq}`;
    const body = { owner_email: email, meeting_class: CLASS, start: start.toISOString(), end: end.toISOString() };
    const begun = await beginIdempotent(db, { agentId: actor.agentId, method: 'POST', path: '/v1/bookings', key }, requestFingerprint(body, ''), now);
    if (begun.kind !== 'proceed') throw new Error(`idempotency key ${key} replayed`);
    try {
      const view = await createBooking(db, actor, input, now, key);
      await completeIdempotent(db, begun.recordId, 201, JSON.stringify(view));
    } catch (err) {
      if (err instanceof DomainError) await completeIdempotent(db, begun.recordId, 409, JSON.stringify({ error: { code: err.code } }));
      else await releaseIdempotent(db, begun.recordId);
      throw err;
    }
  };
}

/** The same statements through postgres.js directly (bench/lib/rawBooking.ts). */
function rawOp(client: postgres.Sql, seeded: Seeded, tag: string) {
  return async (seq: number) => {
    const email = ownerEmail(tag, Math.floor(Math.random() * OWNERS));
    const start = new Date(slotStart(seq));
    const end = new Date(slotStart(seq) + SLOT_MS);
    const body = { owner_email: email, meeting_class: CLASS, start: start.toISOString(), end: end.toISOString() };
    await rawBooking(client, { customerId: seeded.customerId, agentId: seeded.agentId, className: CLASS, ownerEmail: email, start, end, key: `${tag}-${seq}`, fingerprint: requestFingerprint(body, '') });
  };
}

function errorSummary(errors: Map<string, number>): string {
  if (errors.size === 0) return '0';
  return [...errors.entries()].map(([k, v]) => `${v} ${k}`).join(', ');
}

async function inProcessRow(
  db: Db,
  actor: AgentActor,
  tag: string,
  withKey: boolean,
  mode: string,
  durationS: number,
  section: Row['section'] = 'tx',
  op: (seq: number) => Promise<void> = bookingOp(db, actor, tag, withKey),
): Promise<Row> {
  await waitIdle(WAIT_IDLE_S);
  const load = loadAvg();
  log(`  ${mode}, ${withKey ? 'with' : 'without'} Idempotency-Key: ${CLIENTS} callers, ${WARMUP_S}+${durationS} s (load average ${load})`);
  const r = await drive(CLIENTS, WARMUP_S, durationS, op);
  const perSecond = r.ok / r.seconds;
  const row: Row = {
    section,
    mode,
    idem: withKey ? 'yes' : 'no',
    seconds: r.seconds,
    ok: r.ok,
    perSecond,
    lat: stats(r.samples),
    errors: errorSummary(r.errors),
    clientCpu: r.procMsPerS !== null && perSecond > 0 ? r.procMsPerS / perSecond : null,
    pgCpu: section === 'pglite' || !(perSecond > 0) ? null : r.pgMsPerS / perSecond,
    busy: r.busy,
    load,
  };
  log(`    ${fmt(perSecond)} bookings/s, p50 ${fmt(row.lat.p50)} ms, p99 ${fmt(row.lat.p99)} ms, errors ${row.errors}`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// pgbench: the same statements as createBooking (and the wrapper's idempotency record), in SQL

/** A statement of the service with its $n parameters replaced by pgbench expressions, on one line. */
function pgbenchStatement(text: string, args: string[], gset?: string): string {
  const line = text.replace(/\$(\d+)/g, (_, n: string) => args[Number(n) - 1]).replace(/\s+/g, ' ');
  return gset === undefined ? `${line};` : `${line} \\gset${gset ? ' ' + gset : ''}`;
}

/**
 * The statements createBooking sends (the very texts the service uses, imported from its
 * modules), one per round trip as pgbench runs them. pgbench cannot pipeline here: it reads the
 * owner, calendar and class ids with \gset, which pipeline mode does not allow. Values: ids from
 * gen_random_uuid() (the service sends UUIDv7 strings), the booking id derived from the slot
 * number (the service makes it before the insert, so claim and audit row carry it), times from
 * now()/to_timestamp() (the service sends ISO strings), the owner's email built in SQL from the
 * random owner number.
 */
function pgbenchScript(withKey: boolean): string {
  const key = withKey ? ':slot' : 'null';
  const email = `(:r::text || :domain)`;
  const bookingId = `(:idp || '-0000-7000-8000-' || lpad(to_hex(:slot::bigint), 12, '0'))::uuid`;
  const start = 'to_timestamp(:s)';
  const end = 'to_timestamp(:e)';
  const margin = ARBITRATION_MARGIN_MS / 1000;
  const lines = [
    `\\set r random(0, ${OWNERS - 1})`,
    `\\set slot :n * ${CLIENTS} + :client_id`,
    `\\set n :n + 1`,
    `\\set s :base + :slot * ${SLOT_MS / 1000}`,
    `\\set e :s + ${SLOT_MS / 1000}`,
  ];
  if (withKey) {
    lines.push(pgbenchStatement(CLAIM_KEY, ['gen_random_uuid()', ':agent', "'POST'", "'/v1/bookings'", ':slot', ':fp', "now() + interval '30 seconds'", 'now()', "now() + interval '24 hours'"], 'i_'));
  }
  lines.push('begin;', pgbenchStatement(targetStatement(false, true), [':cust', email, ':class'], ''));
  if (withKey) lines.push(pgbenchStatement(MADE_WITH_KEY, [':agent', ':slot', "'booking'", "now() - interval '24 hours'"]));
  lines.push(
    pgbenchStatement(EXPIRE_BY_EMAIL, [':cust', 'now()', email]),
    pgbenchStatement(AROUND_BY_EMAIL, [':cust', `to_timestamp(:s - ${margin})`, `to_timestamp(:e + ${margin})`, email]),
    pgbenchStatement(INSERT_CLAIM, [
      bookingId, ':cust', ':o_id', ':c_id', ':agent', ':m_id', "'booking'", "'confirmed'", start, end,
      'null', 'null', 'null', 'null', 'null', "'agent'", 'null', 'null', "'[]'", 'false', 'null', 'null', 'null', key, 'now()', 'now()',
    ]),
    pgbenchStatement(INSERT_AUDIT, [
      'gen_random_uuid()', ':cust', 'now()', ':agent', ':o_id', ':o_email', "'booking.create'", "'accept'", 'null', ':m_name', start, end,
      'null', bookingId, "'{}'", key, 'null',
    ]),
    'commit;',
  );
  if (withKey) lines.push(pgbenchStatement(COMPLETE_KEY, [':i_id', '201', ':body']));
  return lines.join('\n') + '\n';
}

async function pgbenchRow(seeded: Seeded, tag: string, withKey: boolean, durationS: number): Promise<Row> {
  const script = path.join(WORK_DIR, `booking-${tag}.sql`);
  fs.writeFileSync(script, pgbenchScript(withKey));
  const logDir = fs.mkdtempSync(path.join(WORK_DIR, `pgbench-${tag}-`));
  const u = new URL(BENCH_DB_URL);
  const sampleBody = JSON.stringify({
    booking_id: newId(),
    hold_id: null,
    owner_email: ownerEmail(tag, 0),
    meeting_class: CLASS,
    start: new Date(BASE_MS).toISOString(),
    end: new Date(BASE_MS + SLOT_MS).toISOString(),
    status: 'confirmed',
    calendar_type: 'internal',
    title: null,
    description: null,
    attendees: [],
    created_at: new Date().toISOString(),
    preempted_booking_ids: [],
  });
  const vars = {
    n: String(Math.ceil(PREFILL / CLIENTS)),
    base: String(BASE_MS / 1000),
    cust: seeded.customerId,
    agent: seeded.agentId,
    class: CLASS,
    domain: `@${tag}.bench.example`,
    fp: requestFingerprint({ x: 1 }, ''),
    idp: randomBytes(4).toString('hex'), // booking ids: this random prefix and the slot number
    body: sampleBody,
  };
  const args = [
    '-n', '-M', 'prepared', '-c', String(CLIENTS), '-j', String(Math.min(CLIENTS, os.cpus().length)), '-T', String(durationS),
    '-f', script, '-l', `--log-prefix=${path.join(logDir, 'tx')}`,
    ...Object.entries(vars).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
    // An empty host (postgres:///db) means the Unix socket in PGHOST, for pgbench as for postgres.js.
    ...(u.hostname ? ['-h', u.hostname, '-p', u.port || '5432'] : []),
    '-U', decodeURIComponent(u.username || 'postgres'), decodeURIComponent(u.pathname.slice(1)),
  ];
  await waitIdle(WAIT_IDLE_S);
  const load = loadAvg();
  log(`  pgbench, ${withKey ? 'with' : 'without'} idempotency record: ${CLIENTS} clients, ${durationS} s (load average ${load})`);
  const env = { ...process.env, PGPASSWORD: decodeURIComponent(u.password || '') || process.env.PGPASSWORD };
  const child = spawn('pgbench', args, { cwd: logDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const started = performance.now();
  const sampler = cpuSampler(child.pid);
  sampler.startAt(started + 500); // pgbench connects first: skip the first half second
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  const cpu = sampler.stop();
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1] ?? NaN);
  const processed = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1] ?? 0);
  const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
  const aborted = [...out.matchAll(/client \d+ (?:script \d+ )?aborted[^\n]*/g)].map((m) => m[0]);
  if (code !== 0 || aborted.length) log(`    pgbench exit ${code}:\n${out.split('\n').filter((l) => /error|abort|fatal/i.test(l)).slice(0, 5).join('\n')}`);
  // Per-transaction log: "client_id transaction_no time script_no time_epoch time_us", time in microseconds.
  const lat: number[] = [];
  for (const f of fs.readdirSync(logDir)) {
    if (!f.startsWith('tx')) continue;
    for (const line of fs.readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      const parts = line.split(' ');
      if (parts.length >= 6) lat.push(Number(parts[2]) / 1000);
    }
  }
  fs.rmSync(logDir, { recursive: true, force: true });
  const row: Row = {
    section: 'tx',
    mode: 'pgbench -M prepared (same SQL)',
    idem: withKey ? 'yes' : 'no',
    seconds: durationS,
    ok: processed,
    perSecond: tps,
    lat: stats(lat),
    errors: aborted.length || failed ? `${failed} failed, ${aborted.length} clients aborted` : '0',
    clientCpu: cpu.procMsPerS !== null && tps > 0 ? cpu.procMsPerS / tps : null,
    pgCpu: tps > 0 ? cpu.pgMsPerS / tps : null,
    busy: cpu.busy,
    load,
  };
  log(`    ${fmt(tps)} tps, p50 ${fmt(row.lat.p50)} ms, p99 ${fmt(row.lat.p99)} ms, errors ${row.errors}`);
  return row;
}

/** Mean number of active claims of the same owner, made before it, in the +-98 h a sample of the measured bookings loaded. */
async function claimsAround(db: Db, ownerIds: string[]): Promise<number | null> {
  if (!ownerIds.length) return null;
  const rows = (await db.execute(sql`
    with sample as (
      select owner_id, start_at, end_at, created_at from claims
      where owner_id in ${sql.raw(`(${ownerIds.map((id) => `'${id}'`).join(',')})`)} and start_at >= ${new Date(slotStart(PREFILL)).toISOString()}::timestamptz
      order by random() limit 300
    )
    select avg((select count(*) from claims c where c.owner_id = s.owner_id and c.status in ('active','confirmed')
      and tstzrange(c.start_at, c.end_at, '[)') && tstzrange(s.start_at - interval '98 hours', s.end_at + interval '98 hours', '[)')
      and c.created_at < s.created_at))::float8 as mean
    from sample s`)) as unknown as { mean: number | null }[];
  return rows[0]?.mean ?? null;
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** Claims-around figures per measurement, for the notes. */
const AROUND: string[] = [];

type HttpRun = { row: Row; rssMaxMb: number; samples: string[] };

async function autocannonRow(
  server: RunningServer,
  mode: string,
  durationS: number,
  warmupS: number,
  request: { method: string; path: string; make: (seq: number) => { headers: Record<string, string>; body?: string } },
): Promise<HttpRun> {
  let seq = PREFILL;
  const samples: string[] = [];
  const opts = (duration: number) => ({
    url: server.baseUrl,
    connections: HTTP_CONNECTIONS,
    duration,
    timeout: 30,
    requests: [
      {
        method: request.method,
        path: request.path,
        setupRequest: (req: Record<string, unknown>) => {
          const r = request.make(seq++);
          return { ...req, method: request.method, path: request.path, headers: r.headers, body: r.body };
        },
        onResponse: (status: number, body: string) => {
          if ((status < 200 || status >= 300) && samples.length < 3) samples.push(`${status} ${body.slice(0, 300)}`);
        },
      },
    ],
  });
  if (warmupS > 0) await autocannon(opts(warmupS));
  await waitIdle(WAIT_IDLE_S);
  const load = loadAvg();
  log(`  HTTP ${mode}: ${HTTP_CONNECTIONS} connections, ${warmupS}+${durationS} s (load average ${load})`);
  const pid = server.child.pid!;
  const mem = sampleMemory(pid, 100);
  const started = performance.now();
  const sampler = cpuSampler(pid);
  sampler.startAt(started);
  const res = await autocannon(opts(durationS));
  const cpu = sampler.stop();
  const m = mem.stop();
  const ok = res['2xx'];
  const perSecond = ok / res.duration;
  const codes = res.statusCodeStats ? Object.entries(res.statusCodeStats).filter(([c]) => !c.startsWith('2')).map(([c, v]) => `${v.count} HTTP ${c}`) : [];
  const errs = [...codes, ...(res.errors ? [`${res.errors} socket errors`] : []), ...(res.timeouts ? [`${res.timeouts} timeouts`] : [])];
  const row: Row = {
    section: 'http',
    mode,
    idem: request.method === 'POST' ? 'yes' : 'n/a',
    seconds: res.duration,
    ok,
    perSecond,
    lat: { p50: res.latency.p50, p99: res.latency.p99 },
    errors: errs.length ? errs.join(', ') : '0',
    clientCpu: cpu.procMsPerS !== null && perSecond > 0 ? cpu.procMsPerS / perSecond : null,
    pgCpu: perSecond > 0 ? cpu.pgMsPerS / perSecond : null,
    busy: cpu.busy,
    load,
    note: `server RSS max ${(m.maxRssKb / 1024).toFixed(0)} MB (${m.samples} samples)`,
  };
  log(`    ${fmt(perSecond)} req/s (2xx), p50 ${fmt(row.lat.p50)} ms, p99 ${fmt(row.lat.p99)} ms, non-2xx/errors ${row.errors}; server RSS max ${(m.maxRssKb / 1024).toFixed(0)} MB, VmHWM ${(m.hwmKb / 1024).toFixed(0)} MB`);
  for (const s of samples) log(`    sample: ${s}`);
  return { row, rssMaxMb: m.maxRssKb / 1024, samples };
}

async function mintKeys(db: Db, seeded: Seeded, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i += 16) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, n - i) }, (_, j) => mintApiKey(db, seeded.customerId, null, seeded.agentId, `bench-booking-${i + j}`, new Date())),
    );
    keys.push(...batch.map((k) => k.api_key));
  }
  return keys;
}

const randomIp = () => `10.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}.${(Math.random() * 254 + 1) | 0}`;

type HttpSummary = { rows: Row[]; rssMaxMb: number; hwmMb: number; idleRssMb: number; notes: string[] };

async function benchHttp(db: Db, seeded: Seeded): Promise<HttpSummary> {
  const notes: string[] = [];
  const app = prepareApp(ROOT, STAGE_DIR, { reuse: flag('reuse-build'), inPlace: flag('in-place'), noBuild: flag('no-build') });
  if (app.buildSeconds !== null) notes.push(`build: \`next build\` of a staged copy took ${app.buildSeconds.toFixed(0)} s`);
  const tag = 'h';
  const ownerIds = await seedOwners(db, seeded, tag, OWNERS);
  // Enough keys for 2,000 bookings/s over warm-up + measurement at PER_KEY requests per key.
  const warmupS = QUICK ? 1 : 3;
  const nKeys = Math.ceil(((warmupS + DURATION_S) * 2000) / PER_KEY);
  const t0 = performance.now();
  const keys = await mintKeys(db, seeded, nKeys);
  log(`  minted ${keys.length} API keys in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const profDir = opt('server-prof');
  const server = await startServer(app.dir, { DATABASE_URL: BENCH_DB_URL, REDIS_URL, TRUST_PROXY: '1', LOG_LEVEL: 'silent' }, profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
  try {
    const pid = server.child.pid!;
    const idle = sampleMemory(pid, 100).stop();
    const rows: Row[] = [];
    let rssMax = 0;
    const booking = await autocannonRow(server, 'POST /v1/bookings', DURATION_S, warmupS, {
      method: 'POST',
      path: '/v1/bookings',
      make: (seq) => {
        if (seq - PREFILL >= keys.length * PER_KEY) throw new Error('out of API keys');
        const start = slotStart(seq);
        return {
          headers: {
            authorization: `Bearer ${keys[Math.floor((seq - PREFILL) / PER_KEY)]}`,
            'content-type': 'application/json',
            'idempotency-key': `${tag}-${seq}`,
            'x-forwarded-for': randomIp(),
          },
          body: JSON.stringify({
            owner_email: ownerEmail(tag, Math.floor(Math.random() * OWNERS)),
            meeting_class: CLASS,
            start: new Date(start).toISOString(),
            end: new Date(start + SLOT_MS).toISOString(),
          }),
        };
      },
    });
    rows.push(booking.row);
    rssMax = Math.max(rssMax, booking.rssMaxMb);
    AROUND.push(`HTTP ${fmt(await claimsAround(db, ownerIds))}`);
    const trivial = await autocannonRow(server, 'GET /v1/notifications', DURATION_S, warmupS, {
      method: 'GET',
      path: '/v1/notifications',
      make: () => ({ headers: { authorization: `Bearer ${seeded.apiKey}`, 'x-forwarded-for': randomIp() } }),
    });
    rows.push(trivial.row);
    rssMax = Math.max(rssMax, trivial.rssMaxMb);
    const end = sampleMemory(pid, 100).stop();
    return { rows, rssMaxMb: rssMax, hwmMb: end.hwmKb / 1024, idleRssMb: idle.maxRssKb / 1024, notes };
  } finally {
    await stopServer(server.child);
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const HEADER = ['measurement', 'Idempotency-Key', 'seconds', 'ok', 'per second', 'p50 ms', 'p99 ms', 'errors / non-2xx', 'client CPU ms/op', 'PostgreSQL CPU ms/op', 'host busy', 'load avg before'];
function cells(r: Row): string[] {
  return [
    r.mode,
    r.idem,
    fmt(r.seconds),
    String(r.ok),
    r.perSecond.toFixed(0),
    fmt(r.lat.p50),
    fmt(r.lat.p99),
    r.errors,
    fmt(r.clientCpu),
    fmt(r.pgCpu),
    r.busy === null ? 'n/a' : `${Math.round(r.busy * 100)} %`,
    r.load,
  ];
}

type Ratio = { label: string; value: number; target: number | null; unit: '%' | 'MB' };
const ratioCells = (r: Ratio) => [
  r.label,
  r.unit === '%' ? `${(r.value * 100).toFixed(0)} %` : `${r.value.toFixed(0)} MB`,
  r.target === null ? '(none)' : r.unit === '%' ? `>= ${r.target * 100} %` : `<= ${r.target} MB`,
  r.target === null ? '' : (r.unit === '%' ? r.value >= r.target : r.value <= r.target) ? 'ok' : 'MISSED',
];

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const rows: Row[] = [];
  const ratios: Ratio[] = [];
  const notes: string[] = [];
  let pgVersion = 'n/a';
  let http: HttpSummary | null = null;
  const pgliteVersion = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version as string;
  const autocannonVersion = (createRequire(__filename)('autocannon/package.json') as { version: string }).version;
  const pgbenchVersion = (() => {
    try {
      return execFileSync('pgbench', ['--version']).toString().trim();
    } catch {
      return 'pgbench not found';
    }
  })();
  const startedAt = new Date();
  const runStart = performance.now();
  const find = (mode: RegExp, idem: string) => rows.find((r) => mode.test(r.mode) && r.idem === idem);

  log(`PostgreSQL: ${BENCH_DB_URL}`);
  await ensureDatabase(BENCH_DB_URL);
  const handle: DbHandle = await openPostgres(BENCH_DB_URL, CLIENTS, MIGRATIONS);
  const db = handle.db;
  let seeded: Seeded | null = null;
  try {
    const [{ v }] = (await db.execute(sql`select current_setting('server_version') as v`)) as unknown as { v: string }[];
    pgVersion = v;
    seeded = await seedCustomer(db, 'pg');
    if (RUN_TX) {
      const a = await seedOwners(db, seeded, 'a', OWNERS);
      rows.push(await inProcessRow(db, seeded.actor, 'a', true, 'in-process createBooking (drizzle, postgres.js)', DURATION_S));
      AROUND.push(`in-process ${fmt(await claimsAround(db, a))}`);
    }
    if (RUN_TX && RUN_PGBENCH) {
      const b = await seedOwners(db, seeded, 'b', OWNERS);
      rows.push(await pgbenchRow(seeded, 'b', true, DURATION_S));
      AROUND.push(`pgbench ${fmt(await claimsAround(db, b))}`);
    }
    if (RUN_TX && RUN_VARIANTS) {
      await seedOwners(db, seeded, 'c', OWNERS);
      rows.push(await inProcessRow(db, seeded.actor, 'c', false, 'in-process createBooking (drizzle, postgres.js)', VARIANT_S));
      if (RUN_PGBENCH) {
        await seedOwners(db, seeded, 'd', OWNERS);
        rows.push(await pgbenchRow(seeded, 'd', false, VARIANT_S));
      }
      await seedOwners(db, seeded, 'f', OWNERS);
      const raw = postgres(BENCH_DB_URL, { max: CLIENTS, onnotice: () => {} });
      try {
        rows.push(await inProcessRow(db, seeded.actor, 'f', true, 'in-process, same SQL on raw postgres.js (ceiling)', VARIANT_S, 'tx', rawOp(raw, seeded, 'f')));
      } finally {
        await raw.end({ timeout: 5 });
      }
    }

    if (RUN_HTTP) {
      http = await benchHttp(db, seeded);
      rows.push(...http.rows);
      notes.push(...http.notes);
    }
  } finally {
    if (seeded && !KEEP) {
      const t0 = performance.now();
      await cleanup(db, seeded.customerId);
      log(`  cleanup: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    await handle.close();
  }

  if (RUN_PGLITE) {
    log('PGlite (in memory)');
    const lite = await openPglite(undefined, MIGRATIONS);
    try {
      const s = await seedCustomer(lite.db, 'pglite');
      await seedOwners(lite.db, s, 'g', OWNERS);
      rows.push(await inProcessRow(lite.db, s.actor, 'g', true, 'in-process createBooking on PGlite (in memory)', DURATION_S, 'pglite'));
    } finally {
      await lite.close();
    }
  }

  // Ratios against targets.
  const inIdem = find(/^in-process createBooking \(/, 'yes');
  const pgIdem = find(/^pgbench/, 'yes');
  const inNo = find(/^in-process createBooking \(/, 'no');
  const pgNo = find(/^pgbench/, 'no');
  const proto = find(/prepared statements/, 'yes');
  if (inIdem && pgIdem) ratios.push({ label: 'in-process / pgbench, with Idempotency-Key', value: inIdem.perSecond / pgIdem.perSecond, target: TARGET_RATIO, unit: '%' });
  if (inNo && pgNo) ratios.push({ label: 'in-process / pgbench, without', value: inNo.perSecond / pgNo.perSecond, target: TARGET_RATIO, unit: '%' });
  const raw = find(/raw postgres\.js/, 'yes');
  if (raw && pgIdem) ratios.push({ label: 'raw postgres.js, same SQL, prepared / pgbench, with key (the ceiling for Node on this driver)', value: raw.perSecond / pgIdem.perSecond, target: null, unit: '%' });
  if (proto && pgIdem) ratios.push({ label: 'in-process with prepared statements (proposed fix) / pgbench, with key', value: proto.perSecond / pgIdem.perSecond, target: TARGET_RATIO, unit: '%' });
  const hb = find(/^POST \/v1\/bookings/, 'yes');
  const ht = find(/^GET \/v1\/notifications/, 'n/a');
  if (hb && ht) ratios.push({ label: 'HTTP bookings / HTTP GET /v1/notifications', value: hb.perSecond / ht.perSecond, target: TARGET_RATIO, unit: '%' });
  if (http) ratios.push({ label: 'server peak RSS under load (VmRSS sampled every 100 ms)', value: http.rssMaxMb, target: TARGET_RSS_MB, unit: 'MB' });

  const totalS = (performance.now() - runStart) / 1000;
  const info = [
    `- date: ${startedAt.toISOString()} (run took ${totalS.toFixed(0)} s)`,
    `- machine: ${machineLine()}; load average at the end ${loadAvg()}`,
    `- Node ${process.version}; PostgreSQL ${pgVersion} (${pgbenchVersion}); PGlite ${pgliteVersion} (in memory); Redis at ${REDIS_URL}; autocannon ${autocannonVersion}`,
    `- run: \`npx tsx bench/booking.ts${argv.length ? ' ' + argv.join(' ') : ''}\`${QUICK ? ' (quick: 3-second measurements)' : ''}`,
    `- load: ${CLIENTS} concurrent callers in-process / pgbench clients (pool of ${CLIENTS} connections), ${HTTP_CONNECTIONS} HTTP connections; ${OWNERS} owners per row; warm-up ${WARMUP_S} s in-process, ${QUICK ? 1 : 3} s HTTP`,
    `- slots: 5-minute bookings on consecutive 5-minute slots from ${new Date(BASE_MS).toISOString()}, slot index from one counter, owner uniformly random; the first ${PREFILL} slots (98 h) pre-filled per row; earlier claims of the owner in the +-98 h a booking loads, mean of 300 sampled measured bookings: ${AROUND.join(', ')}`,
    ...notes.map((n) => `- ${n}`),
  ];
  if (http) info.push(`- server: scripts/serve.mjs, production build, DATABASE_URL (default pool DB_POOL_MAX=10), REDIS_URL (shared rate limiter), TRUST_PROXY=1 with a random X-Forwarded-For per request (so the 600/min per-IP limit of GET /v1/notifications does not cap it); bookings rotate ${PER_KEY} requests per API key (120/min per key); RSS idle ${http.idleRssMb.toFixed(0)} MB, max under load ${http.rssMaxMb.toFixed(0)} MB, VmHWM at the end ${http.hwmMb.toFixed(0)} MB`);

  console.log('\nBooking throughput');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log('');
  console.log(textTable(HEADER, rows.map(cells), 2));
  console.log('');
  console.log(textTable(['target', 'value', 'target', ''], ratios.map(ratioCells)));

  if (WRITE_DOCS) {
    const section = [
      '## Booking throughput',
      '',
      'Generated by `npx tsx bench/booking.ts` (PostgreSQL in `BENCH_DATABASE_URL`, default',
      '`postgres://postgres@127.0.0.1:5432/bench`; one fresh customer, rows deleted at the end).',
      'Each booking is `createBooking` (one transaction: meeting class, owner `FOR UPDATE`, calendar,',
      'the Idempotency-Key look-up when a key is sent, expire due holds, claims in +-98 h, arbitrate,',
      'insert claim, audit row); "Idempotency-Key yes" adds the REST wrapper\'s record insert before and',
      'update after (autocommit, as `server/http/handler.ts` does). The pgbench script sends the same',
      'statements (the SQL drizzle generates, captured with a query logger) with `-M prepared`.',
      '',
      ...info,
      '',
      markdownTable(HEADER, rows.map(cells), 2),
      '',
      'client CPU ms/op: CPU per operation of the bench process (in-process and PGlite rows), of pgbench,',
      'or of the server process (HTTP rows). PostgreSQL CPU ms/op: all `postgres` processes on the host',
      'per operation (other users\' sessions included; n/a for PGlite, which runs inside the bench process).',
      'host busy: share of both cores busy while measuring. "ok" counts operations finished inside the',
      'measured window (HTTP: 2xx responses). In-process latency includes the wait in the per-owner',
      'in-memory queue (`inQueue` in server/domain/claims/decide.ts); HTTP latency is autocannon\'s.',
      '',
      markdownTable(['target', 'value', 'target', ''], ratios.map(ratioCells)),
    ].join('\n');
    writeMarkedSection(path.join(ROOT, 'docs', 'benchmarks.md'), 'booking', 'bench/booking.ts', section);
    log(`\nwrote docs/benchmarks.md (section "Booking throughput")`);
  }
  fs.rmSync(WORK_DIR, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof DomainError ? `${err.code}: ${err.message}` : err);
    process.exit(1);
  },
);

