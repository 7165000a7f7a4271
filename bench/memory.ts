/**
 * Server memory (docs/benchmarks.md, "Server memory"): the production build (scripts/serve.mjs) on
 * PostgreSQL over TCP and Redis, one process, the default pool (DB_POOL_MAX=10). Measures the
 * server's resident memory at idle, after a light warm-up, and at its peak during 500-way races
 * for one slot (direct bookings, then holds whose winner confirms), with the throughput of those
 * races. Each racer has its own API key, its own X-Forwarded-For and its own keep-alive
 * connection, as in the peer harness (../shared/peers/race.mjs).
 *
 *   flock /tmp/heavy.lock npx tsx bench/memory.ts [--app-dir=DIR] [--n=500] [--rounds=5] [--label=NAME]
 *       [--node-args="--max-semi-space-size=8"] [--env=K=V,K=V] [--snapshots=DIR] [--docs]
 *
 * --app-dir: a directory with a production build (default: this checkout; run `next build` first).
 * --label: the run's name in the output (default "this build"); the run prints its figures as one
 *   markdown row, to set runs side by side in a history file. --docs replaces the section
 *   "Server memory" of docs/benchmarks.md with this run's figures.
 * --node-args / --env: extra node flags and environment for the server, to try V8 and pool settings.
 *   scripts/serve.mjs sets SERVER_V8_FLAGS's default (docs/operations.md "Memory settings"); a row
 *   with V8's own defaults needs --env=SERVER_V8_FLAGS=none.
 * --snapshots=DIR: the server starts with --heapsnapshot-signal=SIGUSR2 and writes a heap snapshot
 *   at idle, after the warm-up and 300 ms into the second direct race round (that round's figures
 *   are then distorted: a snapshot stops the process for seconds).
 * Database: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/memory_bench, created
 * when missing, migrated, the seeded customer removed at the end); port BENCH_PORT or a free one.
 *
 * Memory: VmRSS of the server process sampled every 50 ms (the peak is what `ps` would show at its
 * worst), and VmHWM (the kernel's own high-water mark of RSS) read at the end of each phase.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPostgres } from '@/db/drivers/postgres';
import { cleanup, mintKeys, seedCustomer, seedOwners } from './booking/seed';
import { CLASS, MIGRATIONS, ROOT, envOpt, flag, nodeArgsOpt, opt, ownerEmail } from './booking/options';
import { sendText as send } from './lib/httpClient';
import { gitCommit, writeBenchSection } from './lib/benchDoc';
import { ensureDatabase, fmt, loadAvg, log, machineLine, markdownTable, memoryKb, processCpuMs, sampleMemory, stats, vacuumTables } from './lib/measure';
import { startServer, stopServer } from './lib/nextServer';

const DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/memory_bench';
const N = Number(opt('n') ?? 500);
const ROUNDS = Number(opt('rounds') ?? 5);
const LABEL = opt('label') ?? 'this build';
const APP_DIR = path.resolve(opt('app-dir') ?? ROOT);
const NODE_ARGS = nodeArgsOpt();
const EXTRA_ENV = envOpt();
const SNAPSHOTS = opt('snapshots');
const DAY_MS = 86_400_000;
const SLOT_MS = 30 * 60_000;
// Race days lie well past the seeded history (bench/booking/options.ts PREFILL: about 100 h from BASE_MS).
const RACE_BASE = (() => {
  const d = new Date(Date.now() + 60 * DAY_MS);
  d.setUTCHours(10, 0, 0, 0);
  return d.getTime() + (Date.now() % 1000) * DAY_MS; // a fresh block of days per run, so reruns on one database do not collide
})();

const won = (status: number) => status === 200 || status === 201;

type RaceRow = { mode: 'direct' | 'hold'; round: number; wallMs: number; p50: number; p99: number; winners: number; losers: number; fiveXx: number; other: number; cpuMsPerReq: number; peakRssMb: number };

async function main() {
  if (!fs.existsSync(path.join(APP_DIR, '.next', 'BUILD_ID'))) throw new Error(`no production build in ${APP_DIR}/.next: run \`next build\` first`);
  await ensureDatabase(DB_URL);
  const handle = await openPostgres(DB_URL, 4, MIGRATIONS);
  const seeded = await seedCustomer(handle.db, 'memory');
  const tag = `mem${Date.now()}`;
  await seedOwners(handle.db, seeded, tag, 3); // 0: direct race, 1: hold race, 2: warm-up
  log(`minting ${N + 8} API keys`);
  const keys = await mintKeys(handle.db, seeded, N + 8);
  await vacuumTables(DB_URL);
  if (SNAPSHOTS) fs.mkdirSync(SNAPSHOTS, { recursive: true });
  const nodeArgs = [...NODE_ARGS, ...(SNAPSHOTS ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.resolve(SNAPSHOTS)}`] : [])];
  const server = await startServer(
    APP_DIR,
    { DATABASE_URL: DB_URL, REDIS_URL: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379', TRUST_PROXY: '1', LOG_LEVEL: 'warn', NEXTAUTH_SECRET: 'x', AUTH_SECRET: 'x', ...EXTRA_ENV },
    nodeArgs,
    process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined,
  );
  const pid = server.child.pid!;
  const port = Number(new URL(server.baseUrl).port);
  const mb = () => (memoryKb(pid)?.rss ?? 0) / 1024;
  const snapshot = async (name: string) => {
    if (!SNAPSHOTS) return;
    const before = new Set(fs.readdirSync(SNAPSHOTS));
    process.kill(pid, 'SIGUSR2');
    // The file appears when the write starts; wait until its size stops changing.
    for (let last = -1, i = 0; i < 600; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const f = fs.readdirSync(SNAPSHOTS).find((x) => !before.has(x) && x.endsWith('.heapsnapshot'));
      if (!f) continue;
      const size = fs.statSync(path.join(SNAPSHOTS, f)).size;
      if (size === last && size > 0) {
        fs.renameSync(path.join(SNAPSHOTS, f), path.join(SNAPSHOTS, `${name}.heapsnapshot`));
        log(`  heap snapshot ${name}: ${(size / 2 ** 20).toFixed(1)} MB`);
        return;
      }
      last = size;
    }
  };
  let xff = 0;
  const headersFor = (key: string, post: boolean): Record<string, string> => ({
    authorization: `Bearer ${key}`,
    'x-forwarded-for': `10.${(xff >> 16) & 255}.${(xff >> 8) & 255}.${xff++ & 255}`,
    ...(post ? { 'idempotency-key': crypto.randomUUID() } : {}),
  });
  const slot = (day: number, i = 0) => {
    const s = RACE_BASE + day * DAY_MS + i * SLOT_MS;
    return { start: new Date(s).toISOString(), end: new Date(s + SLOT_MS).toISOString() };
  };
  const rows: RaceRow[] = [];
  let idleMb = 0, warmMb = 0, loadStart = '';
  try {
    // Idle: 5 s after the first health answer, the mean of 3 s of samples.
    await new Promise((r) => setTimeout(r, 5000));
    const idle: number[] = [];
    for (let i = 0; i < 6; i++) { idle.push(mb()); await new Promise((r) => setTimeout(r, 500)); }
    idleMb = idle.reduce((a, b) => a + b, 0) / idle.length;
    log(`idle RSS ${fmt(idleMb)} MB (load ${loadAvg()})`);
    await snapshot('1-idle');

    // Light use: 8 clients, 200 direct bookings, 100 holds each confirmed, 100 GET /v1/notifications, on the warm-up owner.
    const warmAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const wk = (i: number) => keys[N + (i % 8)];
    let wi = 0;
    await Promise.all(Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; i < 25; i++, wi++) await send(warmAgent, port, 'POST', '/v1/bookings', headersFor(wk(c), true), { owner_email: ownerEmail(tag, 2), meeting_class: CLASS, ...slot(-40 + c, i) });
      for (let i = 0; i < 12; i++) {
        const s = slot(-30 + c, i);
        const h = await send(warmAgent, port, 'POST', '/v1/holds', headersFor(wk(c), true), { owner_email: ownerEmail(tag, 2), meeting_class: CLASS, hold_scope: 'candidate', candidate: s });
        const id = won(h.status) ? JSON.parse(h.text).hold_id : null;
        if (id) await send(warmAgent, port, 'POST', `/v1/bookings/${id}/confirm`, headersFor(wk(c), true), s);
      }
      for (let i = 0; i < 12; i++) await send(warmAgent, port, 'GET', '/v1/notifications', headersFor(wk(c), false));
    }));
    warmAgent.destroy();
    await new Promise((r) => setTimeout(r, 5000));
    warmMb = mb();
    log(`after warm-up RSS ${fmt(warmMb)} MB`);
    await snapshot('2-warm');

    loadStart = loadAvg().split(' ')[0];
    // The races: ROUNDS rounds of N direct bookings of one slot, then ROUNDS of N holds (the winner confirms).
    for (const mode of ['direct', 'hold'] as const) {
      for (let round = 1; round <= ROUNDS; round++) {
        const s = slot(mode === 'direct' ? round : 20 + round);
        const owner = ownerEmail(tag, mode === 'direct' ? 0 : 1);
        const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
        const sampler = sampleMemory(pid, 50);
        const cpu0 = processCpuMs(pid)!;
        const t0 = performance.now();
        if (SNAPSHOTS && mode === 'direct' && round === 2) setTimeout(() => void snapshot('3-race'), 300);
        const res = await Promise.all(keys.slice(0, N).map(async (k) => {
          const body = mode === 'direct' ? { owner_email: owner, meeting_class: CLASS, ...s } : { owner_email: owner, meeting_class: CLASS, hold_scope: 'candidate', candidate: s };
          const r = await send(agent, port, 'POST', mode === 'direct' ? '/v1/bookings' : '/v1/holds', headersFor(k, true), body);
          if (mode === 'hold' && won(r.status)) {
            const c = await send(agent, port, 'POST', `/v1/bookings/${JSON.parse(r.text).hold_id}/confirm`, headersFor(k, true), s);
            if (c.status !== 200 && c.status !== 201) log(`  confirm answered ${c.status}: ${c.text.slice(0, 200)}`);
          }
          return r;
        }));
        const wallMs = performance.now() - t0;
        await new Promise((r) => setTimeout(r, 500));
        const m = sampler.stop();
        const cpu = processCpuMs(pid)! - cpu0;
        agent.destroy();
        const lat = stats(res.map((r) => r.ms));
        const row: RaceRow = {
          mode, round, wallMs, p50: lat.p50, p99: lat.p99,
          winners: res.filter((r) => won(r.status)).length,
          losers: res.filter((r) => r.status === 409).length,
          fiveXx: res.filter((r) => r.status >= 500 || r.status === 0).length,
          other: res.filter((r) => !won(r.status) && r.status !== 409 && r.status < 500 && r.status !== 0).length,
          cpuMsPerReq: cpu / N,
          peakRssMb: m.maxRssKb / 1024,
        };
        rows.push(row);
        if (row.other) log(`  unexpected answer: ${res.find((r) => !won(r.status) && r.status !== 409)?.text.slice(0, 200)}`);
        log(`${mode} race ${round}: wall ${fmt(wallMs)} ms (${fmt(N / (wallMs / 1000))} answers/s) p50 ${fmt(lat.p50)} p99 ${fmt(lat.p99)} ms, ${row.winners} won, ${row.losers} x 409, ${row.fiveXx} 5xx/errors, ${row.other} other; server ${fmt(row.cpuMsPerReq)} ms CPU/req; peak RSS ${fmt(row.peakRssMb)} MB (VmHWM ${fmt(m.hwmKb / 1024)} MB)`);
        await new Promise((r) => setTimeout(r, 1500));
      }
    }
  } finally {
    const hwm = (memoryKb(pid)?.hwm ?? 0) / 1024;
    log(`VmHWM at the end ${fmt(hwm)} MB`);
    await stopServer(server.child);
    await cleanup(handle.db, seeded.customerId);
    await handle.close();
    if (rows.length === ROUNDS * 2) report(rows, idleMb, warmMb, hwm, loadStart);
  }
}

function report(rows: RaceRow[], idleMb: number, warmMb: number, hwmMb: number, loadStart: string) {
  const of = (mode: string) => rows.filter((r) => r.mode === mode);
  const sum = (mode: 'direct' | 'hold') => {
    const rs = of(mode);
    const wall = rs.reduce((a, r) => a + r.wallMs, 0);
    return {
      perS: (N * rs.length) / (wall / 1000),
      p99: stats(rs.map((r) => r.p99)).p50,
      peak: Math.max(...rs.map((r) => r.peakRssMb)),
      ok: rs.every((r) => r.winners === 1 && r.fiveXx === 0 && r.other === 0),
    };
  };
  const d = sum('direct'), h = sum('hold');
  const peak = Math.max(d.peak, h.peak);
  const cells = [
    LABEL, fmt(idleMb), fmt(warmMb), fmt(d.peak), fmt(h.peak), fmt(hwmMb), fmt(d.perS), fmt(h.perS), fmt(d.p99), fmt(h.p99),
    d.ok && h.ok ? 'yes' : 'NO', peak <= 350 ? 'met' : 'missed', String(ROUNDS), `${loadStart} / ${loadAvg().split(' ')[0]}`,
  ];
  log(`\n${LABEL}: idle ${cells[1]} MB, warm ${cells[2]} MB, peak direct ${cells[3]} / hold ${cells[4]} MB, VmHWM ${cells[5]} MB; answers/s direct ${cells[6]}, hold ${cells[7]}; median p99 ${cells[8]} / ${cells[9]} ms; one winner, 0 5xx: ${cells[10]}; <= 350 MB: ${cells[11]}`);
  const header = ['Build', 'Idle RSS (MB)', 'After warm-up (MB)', 'Peak, direct race (MB)', 'Peak, hold race (MB)', 'VmHWM (MB)', 'Direct race answers/s', 'Hold race answers/s', 'Direct p99 (ms)', 'Hold p99 (ms)', 'One winner, 0 5xx', 'Peak <= 350 MB', 'Rounds', 'Load 1 min, start / end'];
  // One markdown row per run, to set runs side by side in a history file (docs/benchmarks/history/).
  console.log(`\n${markdownTable(header, [cells])}`);
  if (!flag('docs')) return;
  const rounds = rows.length;
  const argv = process.argv.slice(2);
  writeBenchSection('memory', {
    measures: `The production server's resident memory (VmRSS sampled every 50 ms) at idle, after a light warm-up and at its peak during ${N}-way races for one slot (direct bookings, then holds whose winner confirms), each racer with its own API key, address and connection; with the races' answers per second and p99. PostgreSQL over TCP, Redis, one process, the default pool.`,
    command: 'flock /tmp/heavy.lock npx tsx bench/memory.ts --docs',
    run: `npx tsx bench/memory.ts ${argv.join(' ')}`,
    commit: APP_DIR === ROOT ? undefined : `${gitCommit(APP_DIR)} (the build in ${APP_DIR})`,
    host: `${machineLine()}; load average ${loadStart} at the start, ${loadAvg().split(' ')[0]} at the end`,
    figures: [
      { figure: 'peak RSS, direct race', target: '<= 350 MB', latest: `${fmt(d.peak)} MB`, met: d.peak <= 350 },
      { figure: 'peak RSS, hold race', target: '<= 350 MB', latest: `${fmt(h.peak)} MB`, met: h.peak <= 350 },
      { figure: 'exactly one winner and no 5xx in every round', target: 'every round', latest: `${rows.filter((r) => r.winners === 1 && r.fiveXx === 0 && r.other === 0).length} of ${rounds} rounds`, met: d.ok && h.ok },
      { figure: 'idle RSS; after the warm-up', latest: `${fmt(idleMb)} MB; ${fmt(warmMb)} MB` },
      { figure: 'answers per second, direct / hold race', latest: `${fmt(d.perS)} / ${fmt(h.perS)}` },
      { figure: 'p99 (median of the rounds), direct / hold race', latest: `${fmt(d.p99)} / ${fmt(h.p99)} ms` },
    ],
    notes: [`Run "${LABEL}". Throughput compares only between runs back to back on one host.`],
  });
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
