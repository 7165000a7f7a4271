/**
 * Output of the booking benchmark: the rows and ratio tables on stdout and, in full runs, the
 * section "Booking throughput" in docs/benchmarks.md.
 */
import path from 'node:path';
import { fmt, loadAvg, log, machineLine, markdownTable, textTable, writeMarkedSection } from '../lib/measure';
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
  ROOT,
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

type Ratio = { label: string; value: number; target: number | null; unit: '%' | 'MB' | 'x' };
const RATIO_HEADER = ['target', 'value', 'target', ''];
const ratioCells = (r: Ratio) => [
  r.label,
  r.unit === '%' ? `${(r.value * 100).toFixed(0)} %` : r.unit === 'x' ? `${r.value.toFixed(2)}x` : `${r.value.toFixed(0)} MB`,
  r.target === null ? '(none)' : r.unit === '%' ? `>= ${(r.target * 100).toFixed(0)} %` : r.unit === 'x' ? `<= ${r.target}x` : `<= ${r.target} MB`,
  r.target === null ? '' : (r.unit === '%' ? r.value >= r.target : r.value <= r.target) ? 'ok' : 'MISSED',
];

/** The ratios against their targets, for the rows that were measured. */
function ratiosOf(rows: Row[], http: HttpSummary | null): Ratio[] {
  const ratios: Ratio[] = [];
  const find = (mode: RegExp, idem: string) => rows.find((r) => mode.test(r.mode) && r.idem === idem);
  const inIdem = find(/^in-process createBooking \(/, 'yes');
  const pgIdem = find(/^pgbench/, 'yes');
  const inNo = find(/^in-process createBooking \(/, 'no');
  const pgNo = find(/^pgbench/, 'no');
  if (inIdem && pgIdem) ratios.push({ label: 'in-process / pgbench, with Idempotency-Key', value: inIdem.perSecond / pgIdem.perSecond, target: TARGET_RATIO, unit: '%' });
  if (inNo && pgNo) ratios.push({ label: 'in-process / pgbench, without', value: inNo.perSecond / pgNo.perSecond, target: TARGET_RATIO, unit: '%' });
  const raw = find(/raw postgres\.js/, 'yes');
  if (raw && pgIdem) ratios.push({ label: 'raw postgres.js, same SQL / pgbench, with key (no ORM or domain code, but no per-owner queue either)', value: raw.perSecond / pgIdem.perSecond, target: null, unit: '%' });
  // Reschedule against a direct booking in the same run (issue 28: within 1.2x on throughput and p99).
  const moveTargets = (where: string, move: Row | undefined, book: Row | undefined) => {
    if (!move || !book || !(book.perSecond > 0) || !(book.lat.p99 > 0)) return;
    ratios.push({ label: `${where}: reschedule / direct booking, throughput`, value: move.perSecond / book.perSecond, target: 1 / 1.2, unit: '%' });
    ratios.push({ label: `${where}: reschedule / direct booking, p99`, value: move.lat.p99 / book.lat.p99, target: 1.2, unit: 'x' });
  };
  moveTargets('in-process', find(/^in-process reschedule/, 'yes'), inIdem);
  moveTargets('HTTP', find(/^POST \/v1\/bookings\/\{id\}\/reschedule$/, 'yes'), find(/^POST \/v1\/bookings$/, 'yes'));
  const hb = find(/^POST \/v1\/bookings$/, 'yes');
  const ht = find(/^GET \/v1\/notifications/, 'n/a');
  if (hb && ht) ratios.push({ label: 'HTTP bookings / HTTP GET /v1/notifications', value: hb.perSecond / ht.perSecond, target: TARGET_RATIO, unit: '%' });
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

/** What a row measures, at the top of the docs section. */
const DOCS_INTRO = [
  'Generated by `npx tsx bench/booking.ts` (PostgreSQL in `BENCH_DATABASE_URL`, default',
  '`postgres://postgres@127.0.0.1:5432/bench`; one fresh customer, rows deleted at the end).',
  'Each booking is `createBooking`: one transaction in two round trips, first BEGIN with the target',
  'look-up (owner `FOR UPDATE`, its calendar and the meeting class in one statement), the',
  'Idempotency-Key look-up when a key is sent, the expiry of due holds and the claims in +-26 h (what',
  'the verdict needs; a rejection loads +-98 h for its alternatives);',
  'then, after arbitration in Node, the claim insert, its audit row and COMMIT. "Idempotency-Key',
  'yes" adds what the REST wrapper (`server/http/handler.ts`) does: the record insert before the',
  'transaction (autocommit), and the success response stored as the claim transaction\'s last statement',
  '(`runClaimWithAnswer`), in the round trip of the claim insert, audit row and COMMIT. The pgbench script',
  'replays the service\'s own statement texts (imported from `db/hot/claims.ts`, `target.ts`, `audit.ts` and',
  '`idempotency.ts`) with `-M prepared`, one statement per round trip (pgbench cannot',
  'pipeline statements whose results it reads with `\\gset`), the record insert before and the',
  'stored response before COMMIT. The raw postgres.js row (`bench/booking/rawBooking.ts`) sends the',
  'same texts as named prepared statements, pipelined as the service does.',
];

const DOCS_NOTES = [
  'client CPU ms/op: CPU per operation of the bench process (in-process and PGlite rows), of pgbench,',
  'or of the server process (HTTP rows). PostgreSQL CPU ms/op: all `postgres` processes on the host',
  'per operation (other users\' sessions included; n/a for PGlite, which runs inside the bench process).',
  'host busy: share of both cores busy while measuring. "ok" counts operations finished inside the',
  'measured window (HTTP: 2xx responses). In-process latency includes the wait in the per-owner',
  'in-memory queue (`inQueue` in server/domain/claims/claimRunner.ts); HTTP latency is autocannon\'s.',
];

/** Print the run's facts and both tables; with `writeDocs`, replace the section in docs/benchmarks.md. */
export function report(rows: Row[], facts: RunFacts, writeDocs: boolean): void {
  const ratios = ratiosOf(rows, facts.http);
  const info = infoLines(facts);
  console.log('\nBooking throughput');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log('');
  console.log(textTable(HEADER, rows.map(cells), 2));
  console.log('');
  console.log(textTable(RATIO_HEADER, ratios.map(ratioCells)));
  if (!writeDocs) return;
  const section = [
    '## Booking throughput',
    '',
    ...DOCS_INTRO,
    '',
    ...info,
    '',
    markdownTable(HEADER, rows.map(cells), 2),
    '',
    ...DOCS_NOTES,
    '',
    markdownTable(RATIO_HEADER, ratios.map(ratioCells)),
  ].join('\n');
  writeMarkedSection(path.join(ROOT, 'docs', 'benchmarks.md'), 'booking', 'bench/booking.ts', section);
  log(`\nwrote docs/benchmarks.md (section "Booking throughput")`);
}
