/**
 * Contention and history benchmark (docs/benchmarks.md, "Contention and history").
 *
 *   npx tsx bench/contention.ts [options]
 *
 * The production build (staged copy, scripts/serve.mjs, bench/lib/nextServer.ts) on PostgreSQL,
 * once over the Unix socket and once over TCP, with Redis rate limits and TRUST_PROXY=1:
 *   (a) contention: N clients (--sizes, default 100,250,500) race for one 30-minute slot of one
 *       owner, --rounds rounds each (default 5), for a direct booking (POST /v1/bookings) and for
 *       hold-then-confirm (POST /v1/holds, then the winner confirms): winners, 5xx, p50/p99 of
 *       the racing requests, wall time of the round, server and PostgreSQL CPU per request;
 *   (b) history: --clients clients (default 32), each on its own owner (no contention), for
 *       --duration s (default 20) per path, for owners with --histories past claims each
 *       (default 1000,10000,100000): bookings per second and p99 per booking (hold-then-confirm:
 *       both requests).
 * Tables are VACUUM ANALYZEd after seeding and before every measurement (autovacuum may be off).
 *
 * Options: --keep (leave the seeded rows; deleting millions of claims takes minutes) --sizes=a,b --rounds=N --histories=a,b --clients=N --duration=S --transports=socket,tcp
 *   --no-contention / --no-history (skip a part) --server-prof=DIR (CPU profile of the server, written when it stops)
 *   --workers=N (WEB_CONCURRENCY=N: scripts/serve.mjs forks N server processes)
 *   --app-dir=DIR (serve an already built app, e.g. an older commit's, instead of building this
 *   checkout) --label=TEXT (names the run in the output) --reuse-build --out=FILE (JSON results)
 * Environment: BENCH_DATABASE_URL (TCP, default postgres://postgres@127.0.0.1:5432/bench),
 *   BENCH_SOCKET_DIR (default /var/run/postgresql), BENCH_REDIS_URL, BENCH_PORT.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { openPostgres } from '@/db/drivers/postgres';
import { cleanup, mintKeys, seedCustomer, seedOwners, type Seeded } from './booking/seed';
import { flag, MIGRATIONS, opt, ownerEmail, ROOT, CLASS } from './booking/options';
import { fmt, loadAvg, log, postgresCpuByPid, processCpuMs, stats, vacuumTables } from './lib/measure';
import { requestJson, type JsonAnswer } from './lib/httpClient';
import { prepareApp, startServer, stopServer, type RunningServer } from './lib/nextServer';

const list = (name: string, def: string) => (opt(name) ?? def).split(',').filter(Boolean);
const SIZES = list('sizes', '100,250,500').map(Number);
const ROUNDS = Number(opt('rounds') ?? 5);
const HISTORIES = list('histories', '1000,10000,100000').map(Number);
const CLIENTS = Number(opt('clients') ?? 32);
const DURATION_S = Number(opt('duration') ?? 20);
const TRANSPORTS = list('transports', 'socket,tcp');
/** Seconds each path runs, unmeasured, before the first history row of a server. */
const WARMUP_S = 3;
const LABEL = opt('label') ?? 'this checkout';
/** Server processes (scripts/serve.mjs WEB_CONCURRENCY); unset: one. */
const WORKERS = opt('workers') ? Number(opt('workers')) : 0;
const SKIP_CONTENTION = flag('no-contention');
const SKIP_HISTORY = flag('no-history');
const TCP_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const SOCKET_DIR = process.env.BENCH_SOCKET_DIR || '/var/run/postgresql';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const SLOT_MS = 30 * 60_000;
const DAY_MS = 86_400_000;
const PER_KEY = 100;

/** The server's database settings over the Unix socket (postgres.js takes the directory from PGHOST). */
function socketEnv(): Record<string, string> {
  const u = new URL(TCP_URL);
  return { DATABASE_URL: `postgres:///${u.pathname.slice(1)}`, PGHOST: SOCKET_DIR, PGUSER: u.username || 'postgres' };
}

/** API keys handed out PER_KEY uses each (the per-key limit is 120 a minute). */
function keyRing(keys: string[]) {
  let used = 0;
  return () => {
    const k = keys[Math.floor(used++ / PER_KEY)];
    if (!k) throw new Error('out of API keys');
    return k;
  };
}

const randomIp = () => `10.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}.${((Math.random() * 254) | 0) + 1}`;

function post(base: string, key: string, p: string, body: unknown): Promise<JsonAnswer> {
  return requestJson(base, 'POST', p, { authorization: `Bearer ${key}`, 'x-forwarded-for': randomIp(), 'idempotency-key': crypto.randomUUID() }, body);
}

/** Server process CPU (ms) used so far, and every postgres process's (host-wide: other tenants' too). */
function cpuNow(pid: number) {
  return { server: treeCpuMs(pid), pg: postgresCpuByPid() };
}

/** CPU of a process and its children (the server processes of WEB_CONCURRENCY); a child that exited meanwhile is lost. */
function treeCpuMs(pid: number): number {
  let ms = processCpuMs(pid) ?? 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) ms += processCpuMs(Number(entry)) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return ms;
}

/** PostgreSQL CPU between two marks: processes started since count from 0; those that exited are lost. */
function pgCpuBetween(a: Map<number, number>, b: Map<number, number>): number {
  let ms = 0;
  for (const [p, v] of b) ms += v - (a.get(p) ?? 0);
  return ms;
}

type ContentionRow = { transport: string; path: string; n: number; rounds: number; winners: string; fiveXx: number; p50: number; p99: number; wallMs: number; serverCpuMs: number; pgCpuMs: number; load: string };
type HistoryRow = { transport: string; path: string; history: number; seconds: number; bookings: number; perSecond: number; p50: number; p99: number; errors: string; load: string };

/** Next weekday-independent slot in the future: owners work all day every day. */
const BASE = (() => {
  const d = new Date(Date.now() + 20 * DAY_MS);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
})();

async function contention(server: RunningServer, transport: string, seeded: Seeded, key: () => string, tag: string, n: number, mode: 'direct' | 'hold+confirm'): Promise<ContentionRow> {
  const latencies: number[] = [];
  const winners: number[] = [];
  let fiveXx = 0;
  let wall = 0;
  const pid = server.child.pid!;
  const cpu0 = cpuNow(pid);
  const load = loadAvg();
  let requests = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const owner = ownerEmail(tag, r);
    const start = new Date(BASE + 10 * 3_600_000).toISOString();
    const end = new Date(BASE + 10 * 3_600_000 + SLOT_MS).toISOString();
    const keys = Array.from({ length: n }, () => key());
    const t0 = performance.now();
    const results = await Promise.all(
      keys.map(async (k) => {
        if (mode === 'direct') return post(server.baseUrl, k, '/v1/bookings', { owner_email: owner, meeting_class: CLASS, start, end });
        const hold = await post(server.baseUrl, k, '/v1/holds', { owner_email: owner, meeting_class: CLASS, hold_scope: 'candidate', candidate: { start, end } });
        if (hold.status !== 200 && hold.status !== 201) return hold;
        const confirm = await post(server.baseUrl, k, `/v1/bookings/${hold.body.hold_id}/confirm`, { start, end });
        return { status: confirm.status, body: confirm.body, ms: hold.ms + confirm.ms, requests: 2 };
      }),
    );
    wall += performance.now() - t0;
    let won = 0;
    for (const x of results) {
      latencies.push(x.ms);
      requests += (x as { requests?: number }).requests ?? 1;
      if (x.status >= 500) fiveXx++;
      if (x.status === 201 || x.status === 200) won++;
    }
    winners.push(won);
  }
  const cpu1 = cpuNow(pid);
  const s = stats(latencies);
  const row = {
    transport,
    path: mode,
    n,
    rounds: ROUNDS,
    winners: winners.join('/'),
    fiveXx,
    p50: s.p50,
    p99: s.p99,
    wallMs: wall / ROUNDS,
    serverCpuMs: (cpu1.server - cpu0.server) / requests,
    pgCpuMs: pgCpuBetween(cpu0.pg, cpu1.pg) / requests,
    load,
  };
  log(`  ${transport} ${mode} N=${n}: winners ${row.winners}, 5xx ${fiveXx}, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, wall ${fmt(row.wallMs)} ms, server CPU ${fmt(row.serverCpuMs)} ms/req, PG CPU ${fmt(row.pgCpuMs)} ms/req`);
  return row;
}

/** `count` past claims (an hour apart, mixed finished states) for each owner. */
async function seedHistory(db: Awaited<ReturnType<typeof openPostgres>>['db'], seeded: Seeded, ownerIds: string[], count: number): Promise<void> {
  const now = new Date().toISOString();
  for (const ownerId of ownerIds) {
    await db.execute(sql`
      insert into claims (id, customer_id, owner_id, agent_id, meeting_class_id, kind, status, start_at, end_at, hold_scope, expires_at, created_at, updated_at)
      select gen_random_uuid(), ${seeded.customerId}, ${ownerId}, ${seeded.agentId}, ${seeded.classId},
        case when i % 3 = 0 then 'hold' else 'booking' end,
        case when i % 3 = 0 then 'expired' when i % 3 = 1 then 'confirmed' else 'cancelled' end,
        ${now}::timestamptz - i * interval '1 hour', ${now}::timestamptz - i * interval '1 hour' + interval '30 minutes',
        case when i % 3 = 0 then 'candidate' end, case when i % 3 = 0 then ${now}::timestamptz - i * interval '1 hour' + interval '5 minutes' end,
        ${now}::timestamptz - i * interval '1 hour' - interval '1 day', ${now}::timestamptz - i * interval '1 hour'
      from generate_series(1, ${count}) as i`);
  }
}

async function history(server: RunningServer, transport: string, key: () => string, tag: string, historyCount: number, mode: 'direct' | 'hold+confirm', warmup = false): Promise<HistoryRow> {
  if (!warmup) await vacuumTables(TCP_URL);
  const load = loadAvg();
  const latencies: number[] = [];
  const errors = new Map<number, number>();
  let bookings = 0;
  const t0 = performance.now();
  const until = t0 + (warmup ? WARMUP_S : DURATION_S) * 1000;
  // Slots after the contention day, one per owner and request, 40 a day; each transport and path
  // has its own 60 days, the warm-up its own 30 days after them.
  const offset = warmup
    ? 2 + TRANSPORTS.length * 120 + TRANSPORTS.indexOf(transport) * 60 + (mode === 'direct' ? 0 : 30)
    : 2 + TRANSPORTS.indexOf(transport) * 120 + (mode === 'direct' ? 0 : 60);
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const owner = ownerEmail(tag, c);
      for (let i = 0; performance.now() < until; i++) {
        const startMs = BASE + (offset + Math.floor(i / 40)) * DAY_MS + (i % 40) * SLOT_MS;
        const slot = { start: new Date(startMs).toISOString(), end: new Date(startMs + SLOT_MS).toISOString() };
        const k = key();
        let r = await (mode === 'direct'
          ? post(server.baseUrl, k, '/v1/bookings', { owner_email: owner, meeting_class: CLASS, ...slot })
          : post(server.baseUrl, k, '/v1/holds', { owner_email: owner, meeting_class: CLASS, hold_scope: 'candidate', candidate: slot }));
        if (mode !== 'direct' && r.status === 200) {
          const c2 = await post(server.baseUrl, key(), `/v1/bookings/${r.body.hold_id}/confirm`, slot);
          r = { ...c2, ms: r.ms + c2.ms };
        }
        if (r.status === 200 || r.status === 201) {
          bookings++;
          latencies.push(r.ms);
        } else {
          if (!errors.size && !warmup) log(`  first error: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
          errors.set(r.status, (errors.get(r.status) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const s = stats(latencies);
  const row = {
    transport,
    path: mode,
    history: historyCount,
    seconds,
    bookings,
    perSecond: bookings / seconds,
    p50: s.p50,
    p99: s.p99,
    errors: errors.size ? [...errors].map(([st, n]) => `${n} x ${st}`).join(', ') : '0',
    load,
  };
  if (warmup) return row;
  log(`  ${transport} ${mode} history ${historyCount}: ${fmt(row.perSecond)} bookings/s, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, errors ${row.errors}`);
  return row;
}

async function main(): Promise<void> {
  const appDir = opt('app-dir') ?? prepareApp(ROOT, path.join(os.tmpdir(), 'agent-scheduler-bench-contention-app'), { reuse: flag('reuse-build'), inPlace: false, noBuild: false }).dir;
  log(`run "${LABEL}": app ${appDir}; sizes ${SIZES.join(',')} x ${ROUNDS} rounds; histories ${HISTORIES.join(',')} x ${CLIENTS} clients x ${DURATION_S} s; transports ${TRANSPORTS.join(',')}`);
  const handle = await openPostgres(TCP_URL, 8, MIGRATIONS);
  const db = handle.db;
  const seeded = await seedCustomer(db, `contention ${LABEL}`);
  const contentionRows: ContentionRow[] = [];
  const historyRows: HistoryRow[] = [];
  try {
    const perTransport = 2 * ROUNDS * SIZES.reduce((a, b) => a + b, 0) * 2 + (HISTORIES.length * DURATION_S + WARMUP_S) * 2 * 600;
    const keys = await mintKeys(db, seeded, Math.ceil((perTransport * TRANSPORTS.length) / PER_KEY) + 10);
    const key = keyRing(keys);
    // History owners: CLIENTS per level, seeded once, shared by both transports (new slots each run).
    const historyTags = HISTORIES.map((h) => `hist${h}`);
    for (let h = 0; h < (SKIP_HISTORY ? 0 : HISTORIES.length); h++) {
      const t = performance.now();
      const ids = await seedOwners(db, seeded, historyTags[h], CLIENTS);
      await seedHistory(db, seeded, ids, HISTORIES[h]);
      log(`  seeded ${CLIENTS} owners x ${HISTORIES[h]} past claims in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    }
    await vacuumTables(TCP_URL);
    for (const transport of TRANSPORTS) {
      const prof = opt('server-prof');
      const server = await startServer(
        appDir,
        { ...(transport === 'socket' ? socketEnv() : { DATABASE_URL: TCP_URL }), REDIS_URL, TRUST_PROXY: '1', LOG_LEVEL: 'silent', ...(WORKERS ? { WEB_CONCURRENCY: String(WORKERS) } : {}) },
        prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
      );
      try {
        for (const n of SKIP_CONTENTION ? [] : SIZES) {
          for (const mode of ['direct', 'hold+confirm'] as const) {
            const tag = `c${transport}${n}${mode === 'direct' ? 'd' : 'h'}`;
            await seedOwners(db, seeded, tag, ROUNDS);
            await vacuumTables(TCP_URL);
            contentionRows.push(await contention(server, transport, seeded, key, tag, n, mode));
          }
        }
        // Both paths warm up first (JIT, connections), so the first row measured is not the slower for it.
        if (!SKIP_HISTORY) for (const mode of ['direct', 'hold+confirm'] as const) await history(server, transport, key, historyTags[0], HISTORIES[0], mode, true);
        for (let h = 0; h < (SKIP_HISTORY ? 0 : HISTORIES.length); h++) {
          for (const mode of ['direct', 'hold+confirm'] as const) historyRows.push(await history(server, transport, key, historyTags[h], HISTORIES[h], mode));
        }
      } finally {
        await stopServer(server.child);
      }
    }
  } finally {
    if (!flag('keep')) await cleanup(db, seeded.customerId);
    await handle.close();
  }
  const out = opt('out');
  const result = { label: LABEL, at: new Date().toISOString(), sizes: SIZES, rounds: ROUNDS, histories: HISTORIES, clients: CLIENTS, durationS: DURATION_S, contention: contentionRows, history: historyRows };
  if (out) fs.writeFileSync(out, JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
