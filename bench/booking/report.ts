/**
 * Output of the booking benchmark: the rows and ratio tables on stdout and, in full runs, its
 * section of docs/benchmarks.md ("Booking throughput": the ratios against their targets).
 */
import { writeBenchSection, type BenchRun, type Figure } from '../lib/benchDoc';
import { fmt, loadAvg, machineLine, textTable } from '../lib/measure';
import type { HttpSummary } from './load';
import {
  BENCH_DB_URL,
  argv,
  BASE_MS,
  CLIENTS,
  HTTP_CONNECTIONS,
  HTTP_WARMUP_S,
  OWNERS,
  PER_KEY,
  PREFILL,
  QUICK,
  REDIS_URL,
  TARGET_RATIO,
  TARGET_RSS_MB,
  WARMUP_S,
} from './options';
import type { Row } from './sampler';

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

type Ratio = { label: string; value: number; target: number | null; unit: '%' | 'MB' | 'x'; detail?: string };
const RATIO_HEADER = ['target', 'value', 'target', ''];
const valueOf = (r: Ratio) => (r.unit === '%' ? `${(r.value * 100).toFixed(0)} %` : r.unit === 'x' ? `${r.value.toFixed(2)}x` : `${r.value.toFixed(0)} MB`);
const targetOf = (r: Ratio) => (r.target === null ? '(none)' : r.unit === '%' ? `>= ${(r.target * 100).toFixed(0)} %` : r.unit === 'x' ? `<= ${r.target}x` : `<= ${r.target} MB`);
const metOf = (r: Ratio) => (r.target === null ? undefined : r.unit === '%' ? r.value >= r.target : r.value <= r.target);
const ratioCells = (r: Ratio) => [r.label, valueOf(r), targetOf(r), metOf(r) === undefined ? '' : metOf(r) ? 'ok' : 'MISSED'];
const perS = (a: Row, b: Row) => `${a.perSecond.toFixed(0)} / ${b.perSecond.toFixed(0)}`;

/** The ratios against their targets, for the rows that were measured. */
function ratiosOf(rows: Row[], http: HttpSummary | null): Ratio[] {
  const ratios: Ratio[] = [];
  const find = (mode: RegExp, idem: string) => rows.find((r) => mode.test(r.mode) && r.idem === idem);
  const inIdem = find(/^in-process createBooking \(/, 'yes');
  const pgIdem = find(/^pgbench/, 'yes');
  const inNo = find(/^in-process createBooking \(/, 'no');
  const pgNo = find(/^pgbench/, 'no');
  if (inIdem && pgIdem) ratios.push({ label: 'in process / pgbench, bookings per second, with Idempotency-Key', value: inIdem.perSecond / pgIdem.perSecond, target: TARGET_RATIO, unit: '%', detail: perS(inIdem, pgIdem) });
  if (inNo && pgNo) ratios.push({ label: 'in process / pgbench, bookings per second, without', value: inNo.perSecond / pgNo.perSecond, target: TARGET_RATIO, unit: '%', detail: perS(inNo, pgNo) });
  const raw = find(/raw postgres\.js/, 'yes');
  if (raw && pgIdem) ratios.push({ label: 'raw postgres.js, same statements / pgbench, with key (no ORM or domain code, but no per-owner queue either)', value: raw.perSecond / pgIdem.perSecond, target: null, unit: '%', detail: perS(raw, pgIdem) });
  // Reschedule against a direct booking in the same run (issue 28: within 1.2x on throughput and p99).
  const moveTargets = (where: string, move: Row | undefined, book: Row | undefined) => {
    if (!move || !book || !(book.perSecond > 0) || !(book.lat.p99 > 0)) return;
    ratios.push({ label: `${where}: reschedule / direct booking, throughput`, value: move.perSecond / book.perSecond, target: 1 / 1.2, unit: '%', detail: perS(move, book) });
    ratios.push({ label: `${where}: reschedule / direct booking, p99`, value: move.lat.p99 / book.lat.p99, target: 1.2, unit: 'x', detail: `${fmt(move.lat.p99)} / ${fmt(book.lat.p99)} ms` });
  };
  moveTargets('in process', find(/^in-process reschedule/, 'yes'), inIdem);
  moveTargets('HTTP', find(/^POST \/v1\/bookings\/\{id\}\/reschedule$/, 'yes'), find(/^POST \/v1\/bookings$/, 'yes'));
  const hb = find(/^POST \/v1\/bookings$/, 'yes');
  const ht = find(/^GET \/v1\/notifications/, 'n/a');
  if (hb && ht) ratios.push({ label: 'HTTP: POST /v1/bookings / GET /v1/notifications, per second', value: hb.perSecond / ht.perSecond, target: TARGET_RATIO, unit: '%', detail: perS(hb, ht) });
  if (http) ratios.push({ label: 'server peak RSS under load (VmRSS sampled every 100 ms)', value: http.rssMaxMb, target: TARGET_RSS_MB, unit: 'MB' });
  return ratios;
}

export type RunFacts = {
  startedAt: Date;
  totalS: number;
  pgVersion: string;
  pgbenchVersion: string;
  pgliteVersion: string;
  autocannonVersion: string;
  /** Claims-around figures per measurement ("in-process 18.3", ...). */
  around: string[];
  notes: string[];
  http: HttpSummary | null;
};

/** The run's facts as markdown list items. */
function infoLines(f: RunFacts): string[] {
  const info = [
    `- date: ${f.startedAt.toISOString()} (run took ${f.totalS.toFixed(0)} s)`,
    `- machine: ${machineLine()}; load average at the end ${loadAvg()}`,
    `- Node ${process.version}; PostgreSQL ${f.pgVersion} at \`${BENCH_DB_URL}\`${new URL(BENCH_DB_URL).hostname ? ' (TCP)' : ` (Unix socket in PGHOST=${process.env.PGHOST ?? '(default)'}, for the service, pgbench and the server alike)`} (${f.pgbenchVersion}); PGlite ${f.pgliteVersion} (in memory); Redis at ${REDIS_URL}; autocannon ${f.autocannonVersion}`,
    `- run: \`npx tsx bench/booking.ts${argv.length ? ' ' + argv.join(' ') : ''}\`${QUICK ? ' (quick: 3-second measurements)' : ''}`,
    `- load: ${CLIENTS} concurrent callers in-process / pgbench clients (pool of ${CLIENTS} connections), ${HTTP_CONNECTIONS} HTTP connections; ${OWNERS} owners per row; warm-up ${WARMUP_S} s in-process, ${HTTP_WARMUP_S} s HTTP`,
    `- slots: 5-minute bookings on consecutive 5-minute slots from ${new Date(BASE_MS).toISOString()}, slot index from one counter, owner uniformly random; the first ${PREFILL} slots (98 h) pre-filled per row; earlier claims of the owner in the +-26 h a booking loads, mean of 300 sampled measured bookings: ${f.around.join(', ')}`,
    ...f.notes.map((n) => `- ${n}`),
  ];
  const http = f.http;
  if (http) info.push(`- server: scripts/serve.mjs, production build, DATABASE_URL (default pool DB_POOL_MAX=10), REDIS_URL (shared rate limiter), TRUST_PROXY=1 with a random X-Forwarded-For per request (so the 600/min per-IP limit of GET /v1/notifications does not cap it); bookings rotate ${PER_KEY} requests per API key (120/min per key); RSS idle ${http.idleRssMb.toFixed(0)} MB, max under load ${http.rssMaxMb.toFixed(0)} MB, VmHWM at the end ${http.hwmMb.toFixed(0)} MB`);
  return info;
}

/** What the run measures, for its section of docs/benchmarks.md. */
const MEASURES =
  "Bookings per second under 16 concurrent callers: `createBooking` in process against pgbench replaying the same statements (with and without Idempotency-Key); a reschedule against a direct booking, in process and over HTTP; and over HTTP (the production build, 32 connections) `POST /v1/bookings` against `GET /v1/notifications`, the fixed path every request pays; with the server's peak RSS under that load.";

/** How to read the rows printed on stdout. */
const ROW_NOTES = [
  'client CPU ms/op: CPU per operation of the bench process (in-process and PGlite rows), of pgbench, or of the server process (HTTP rows).',
  "PostgreSQL CPU ms/op: all `postgres` processes on the host per operation (other users' sessions included; n/a for PGlite, which runs inside the bench process).",
  'host busy: share of both cores busy while measuring. "ok" counts operations finished inside the measured window (HTTP: 2xx responses).',
  "In-process latency includes the wait in the per-owner in-memory queue (`inQueue` in server/domain/claims/claimRunner.ts); HTTP latency is autocannon's.",
  'The pgbench script replays the service\'s own statement texts (db/hot/) with -M prepared, one statement per round trip; the raw postgres.js row sends the same texts pipelined as the service does.',
];

/** The section of docs/benchmarks.md: every ratio against its target, the targetless ones last. */
function benchRun(ratios: Ratio[]): BenchRun {
  const figure = (r: Ratio): Figure => ({ figure: r.label, target: r.target === null ? undefined : targetOf(r), latest: r.detail ? `${valueOf(r)} (${r.detail})` : valueOf(r), met: metOf(r) });
  const tcp = new URL(BENCH_DB_URL).hostname !== '';
  return {
    measures: MEASURES,
    command: 'npx tsx bench/booking.ts',
    run: `npx tsx bench/booking.ts${argv.length ? ' ' + argv.join(' ') : ''}`,
    host: `${machineLine()}; PostgreSQL over ${tcp ? 'TCP' : 'the Unix socket'}; load average ${loadAvg()} at the end`,
    figures: [...ratios.filter((r) => r.target !== null), ...ratios.filter((r) => r.target === null)].map(figure),
    notes: [
      ...(QUICK ? ['A quick run: 3-second measurements.'] : []),
      'The run prints every row: per second, p50 and p99, CPU per operation of the client and of PostgreSQL.',
    ],
  };
}

/** Print the run's facts and both tables; with `writeDocs`, replace its section of docs/benchmarks.md. */
export function report(rows: Row[], facts: RunFacts, writeDocs: boolean): void {
  const ratios = ratiosOf(rows, facts.http);
  const info = infoLines(facts);
  console.log('\nBooking throughput');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log('');
  console.log(textTable(HEADER, rows.map(cells), 2));
  console.log('');
  console.log(textTable(RATIO_HEADER, ratios.map(ratioCells)));
  console.log(`\n${ROW_NOTES.join('\n')}`);
  if (writeDocs) writeBenchSection('booking', benchRun(ratios));
}
