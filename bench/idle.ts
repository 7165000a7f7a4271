/**
 * An idle production server (docs/benchmarks.md "Idle server"; docs/operations.md "Idle"): the
 * production build (scripts/serve.mjs) started on the embedded PGlite (a fresh directory, the
 * README's default) and on PostgreSQL with Redis, left alone; the CPU it spends at rest is read
 * from /proc/<pid>/stat (utime + stime of the server process) over the window.
 *
 *   npx tsx bench/idle.ts                 5 minutes per database after 30 s to settle (writes its section of docs/benchmarks.md)
 *   npx tsx bench/idle.ts --quick         1 minute per database after 10 s (no docs unless --docs)
 *
 * Options: --window=S --settle=S --db=embedded|postgres|both --no-build (reuse this checkout's .next)
 *   --app-dir=DIR (a directory with a production build) --env=K=V,K=V --docs/--no-docs
 * Database: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/idle_bench, created when
 * missing, vacuumed first); Redis BENCH_REDIS_URL (default redis://127.0.0.1:6379); port BENCH_PORT
 * or a free one. The server's node is the first on PATH (node_modules/.bin/node under npx: Node 24).
 *
 * Target: at most 0.2 % of one core over 5 minutes. Nothing is requested during the window, so what
 * is counted is the server's own timers (webhook worker, sweeper, calendar sync, metrics, rate
 * limiter, Next.js) and the database driver.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, writeBenchSection, type Figure } from './lib/benchDoc';
import { ensureDatabase, fmt, loadAvg, log, machineLine, markdownTable, processCpuMs, vacuumTables } from './lib/measure';
import { prepareApp, startServer, stopServer } from './lib/nextServer';
import { envOpt, flag, opt } from './booking/options';

const QUICK = flag('quick');
const WINDOW_S = Number(opt('window') ?? (QUICK ? 60 : 300));
const SETTLE_S = Number(opt('settle') ?? (QUICK ? 10 : 30));
const DBS = (opt('db') ?? 'both') === 'both' ? ['embedded', 'postgres'] : [opt('db')!];
const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
const DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/idle_bench';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const TARGET_PCT = 0.2;
const EXTRA_ENV = envOpt();

type Row = { db: string; windowS: number; cpuMs: number; pct: number; worstMinutePct: number; node: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(appDir: string, db: string): Promise<Row> {
  const dataDir = db === 'embedded' ? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-idle-')) : undefined;
  if (db === 'postgres') {
    await ensureDatabase(DB_URL);
    await vacuumTables(DB_URL).catch(() => {}); // a fresh database has no tables until the server migrates it
  }
  const env = db === 'embedded' ? { PGLITE_DIR: path.join(dataDir!, 'db') } : { DATABASE_URL: DB_URL, REDIS_URL };
  const server = await startServer(
    appDir,
    { ...env, LOG_LEVEL: 'warn', NEXTAUTH_SECRET: 'x', AUTH_SECRET: 'x', ...EXTRA_ENV },
    [],
    process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined,
  );
  const pid = server.child.pid!;
  try {
    log(`${db}: server pid ${pid} up; settling ${SETTLE_S} s`);
    await sleep(SETTLE_S * 1000);
    const t0 = performance.now();
    const c0 = processCpuMs(pid)!;
    const minutes: number[] = [];
    let last = c0;
    let lastAt = t0;
    while (performance.now() - t0 < WINDOW_S * 1000) {
      await sleep(Math.min(60_000, WINDOW_S * 1000 - (performance.now() - t0)));
      const c = processCpuMs(pid)!;
      const at = performance.now();
      minutes.push(((c - last) / (at - lastAt)) * 100);
      log(`  ${db}: ${fmt(((c - c0) / (at - t0)) * 100)} % of a core so far (${Math.round(c - c0)} ms CPU in ${Math.round((at - t0) / 1000)} s)`);
      last = c;
      lastAt = at;
    }
    const cpuMs = processCpuMs(pid)! - c0;
    const windowS = (performance.now() - t0) / 1000;
    return { db, windowS, cpuMs, pct: (cpuMs / (windowS * 1000)) * 100, worstMinutePct: Math.max(...minutes), node: execFileSync('node', ['-v']).toString().trim() };
  } finally {
    await stopServer(server.child);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const appDir = opt('app-dir') ? path.resolve(opt('app-dir')!) : prepareApp(ROOT, ROOT, { reuse: false, inPlace: true, noBuild: flag('no-build') }).dir;
  const load0 = loadAvg();
  const rows: Row[] = [];
  for (const db of DBS) rows.push(await measure(appDir, db));
  const label = (db: string) => (db === 'embedded' ? 'embedded PGlite (on disk)' : 'PostgreSQL + Redis');
  const table = markdownTable(
    ['Database', 'Window (s)', 'Server CPU (ms)', '% of one core', 'Worst minute (%)', 'Target'],
    rows.map((r) => [label(r.db), fmt(r.windowS), String(Math.round(r.cpuMs)), fmt(r.pct), fmt(r.worstMinutePct), r.pct <= TARGET_PCT ? 'met' : 'missed']),
  );
  console.log(`\n${table}\n`);
  if (WRITE_DOCS) {
    const figures: Figure[] = rows.map((r) => ({
      figure: `idle server CPU, ${label(r.db)}`,
      target: `<= ${TARGET_PCT} % of a core`,
      latest: `${fmt(r.pct)} % (${Math.round(r.cpuMs)} ms in ${Math.round(r.windowS)} s; worst minute ${fmt(r.worstMinutePct)} %)`,
      met: r.pct <= TARGET_PCT,
    }));
    writeBenchSection('idle', {
      measures: `The CPU an idle production server (scripts/serve.mjs, the production build) spends at rest, from \`/proc/<pid>/stat\` (utime + stime of the server process) over ${Math.round(WINDOW_S / 60)} minute(s) after ${SETTLE_S} s to settle, with no request: on the embedded PGlite in a fresh directory and on PostgreSQL with Redis.`,
      command: 'npx tsx bench/idle.ts',
      run: `npx tsx bench/idle.ts${process.argv.length > 2 ? ' ' + process.argv.slice(2).join(' ') : ''}`,
      host: `${machineLine()}; server on ${rows[0]?.node ?? 'unknown'}; load average ${load0} at the start, ${loadAvg()} at the end`,
      figures,
      notes: [
        ...(WINDOW_S < 300 ? [`${Math.round(WINDOW_S)} s per database (a full run takes 300).`] : []),
        'The timers left at rest and their periods are listed in docs/operations.md "Idle". CPU time is counted in ticks of 10 ms.',
      ],
    });
  }
  if (rows.some((r) => r.pct > TARGET_PCT)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
