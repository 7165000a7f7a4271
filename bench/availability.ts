/**
 * Availability search benchmark (p50/p99 of POST /v1/availability/search).
 *
 *   npx tsx bench/availability.ts            full run (writes its section of docs/benchmarks.md)
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
 *     PostgreSQL, concurrency 1, plain fetch with keep-alive (the first response of each scenario
 *     is checked to carry the in-process slots),
 *   - plus a phase split in-process: look-ups (meeting class + owner + calendar, one statement:
 *     loadTarget), claim load (loadClaims), pure slot search (searchSlots), and their sum,
 *   - plus buffers in-process (issue 39: within 1.2x): the same search through the searching class
 *     and through its twin with buffers (15 min before, 10 after), in pairs of alternating order,
 *     whole and pure slot search (availability/buffers.ts).
 *
 * Owner rules: working hours Mon-Fri 09:00-17:00 Europe/Berlin, a lunch hard block 12:00-13:00,
 * RRULE hard blocks (weekly Wednesday 15:00 60 min, monthly on the 1st 09:00 90 min), a daily limit.
 * Bookings are generated on a grid (07:00-20:00 local on working days, non-overlapping by
 * construction) and inserted in bulk with db.insert(claims).values([...]). Class mix: 70 % a
 * low-priority internal class (preemptable by the search's class), 15 % customer meetings with an
 * accepted external attendee (sacred), 10 % provider-imported (sacred, no class), 5 % an exec class
 * above the search's priority. The generator is seeded, so every run sees the same calendar.
 *
 * Code: availability/options.ts (command line, scenario), availability/seed.ts (bookings, seeding),
 * availability/measure.ts (in-process and phases), availability/buffers.ts (buffered against
 * unbuffered), availability/http.ts (build, serve, HTTP),
 * availability/report.ts (tables, docs section); shared helpers in lib/.
 *
 * Options:
 *   --quick                 50/20 iterations instead of 300/100
 *   --iter72=N --iter31=N   iterations (warm-up is 10 % + 10)
 *   --no-pg --no-pglite --no-http --no-phases --no-buffers
 *   --docs / --no-docs      write (or not) its section of docs/benchmarks.md
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
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { Db, DbHandle } from '@/db/client';
import { openPglite } from '@/db/drivers/pglite';
import { openPostgres } from '@/db/drivers/postgres';
import { DomainError } from '@/server/domain/errors';
import { ensureDatabase, log, vacuumTables } from './lib/measure';
import { startServer, stopServer } from './lib/nextServer';
import { benchHttp, prepareApp } from './availability/http';
import { benchInProcess, benchPhases, countsFor, type Counts } from './availability/measure';
import { BASE_URL, BENCH_DB_URL, IN_PLACE, KEEP, MIGRATIONS, ROOT, RUN_HTTP, RUN_PG, RUN_PGLITE, RUN_BUFFERS, RUN_PHASES, WRITE_DOCS } from './availability/options';
import { benchBuffers } from './availability/buffers';
import { report, type Report } from './availability/report';
import { cleanup, seed, type Seeded } from './availability/seed';

/** Seed, time in-process and phases, then (when asked) HTTP against a served build on the same database. */
async function runPostgres(rep: Report): Promise<void> {
  log(`PostgreSQL: ${BENCH_DB_URL}`);
  await ensureDatabase(BENCH_DB_URL);
  const handle: DbHandle = await openPostgres(BENCH_DB_URL, 10, MIGRATIONS);
  const db = handle.db;
  let seeded: Seeded | null = null;
  try {
    const [{ v }] = (await db.execute(sql`select current_setting('server_version') as v`)) as unknown as { v: string }[];
    rep.pgVersion = v;
    const t0 = performance.now();
    seeded = await seed(db, 'pg');
    await vacuumTables(BENCH_DB_URL); // autovacuum may be off: start from vacuumed tables
    log(`  seeded ${seeded.owners.map((o) => `${o.profile.name}=${o.events}`).join(', ')} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    rep.seededSummary = seeded.owners.map((o) => `${o.profile.name}: ${o.events} bookings`).join(', ');
    const counts = await countsFor(db, seeded);
    rep.rows.push(...(await benchInProcess(db, 'in-process PostgreSQL', seeded, counts)));
    if (RUN_PHASES) rep.phases.push(...(await benchPhases(db, 'PostgreSQL', seeded)));
    if (RUN_BUFFERS) rep.buffers.push(...(await benchBuffers(db, 'PostgreSQL', seeded)));
    if (RUN_HTTP) await runHttp(db, seeded, counts, rep);
  } finally {
    if (seeded && !KEEP) await cleanup(db, seeded.customerId);
    await handle.close();
  }
}

async function runHttp(db: Db, seeded: Seeded, counts: Counts, rep: Report): Promise<void> {
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    if (!BASE_URL) server = await startServer(prepareApp(), { DATABASE_URL: BENCH_DB_URL, LOG_LEVEL: 'silent' });
    rep.notes.push(
      BASE_URL
        ? `HTTP: running server at ${BASE_URL} (the first response of each scenario is checked to carry the in-process slots)`
        : `HTTP: production build served by ${fs.existsSync(path.join(ROOT, 'scripts', 'serve.mjs')) ? 'scripts/serve.mjs' : 'next start'} from ${IN_PLACE ? 'this checkout' : 'a staged copy of this checkout'}, in-memory rate limiter, fetch with keep-alive, concurrency 1; times include JSON encoding and reading the body; the first response of each scenario is checked to carry the in-process slots`,
    );
    rep.rows.push(...(await benchHttp(db, BASE_URL ?? server!.baseUrl, server?.child.pid, seeded, counts)));
  } finally {
    if (server) await stopServer(server.child);
  }
}

async function runPglite(rep: Report): Promise<void> {
  log('PGlite (in memory)');
  const handle = await openPglite(undefined, MIGRATIONS);
  try {
    const t0 = performance.now();
    const seeded = await seed(handle.db, 'pglite');
    log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const counts = await countsFor(handle.db, seeded);
    rep.rows.push(...(await benchInProcess(handle.db, 'in-process PGlite', seeded, counts)));
    if (RUN_PHASES) rep.phases.push(...(await benchPhases(handle.db, 'PGlite', seeded)));
    if (RUN_BUFFERS) rep.buffers.push(...(await benchBuffers(handle.db, 'PGlite', seeded)));
  } finally {
    await handle.close();
  }
}

async function main(): Promise<void> {
  const pgliteVersion = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version as string;
  const rep: Report = { rows: [], phases: [], buffers: [], pgVersion: null, pgliteVersion, notes: [], seededSummary: '' };
  if (RUN_PG) await runPostgres(rep);
  if (RUN_PGLITE) await runPglite(rep);
  report(rep, WRITE_DOCS);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof DomainError ? `${err.code}: ${err.message}` : err);
    process.exit(1);
  },
);
