/**
 * HTTP rows of the booking benchmark: the production build served by scripts/serve.mjs on
 * PostgreSQL and Redis, autocannon on POST /v1/bookings and on GET /v1/notifications, and the
 * server's resident memory while it runs.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { Db } from '@/db/client';
import { fmt, loadAvg, log, sampleMemory, vacuumTables, waitIdle } from '../lib/measure';
import { prepareApp, startServer, stopServer, type RunningServer } from '../lib/nextServer';
import {
  BENCH_DB_URL,
  CLASS,
  DURATION_S,
  flag,
  HTTP_CONNECTIONS,
  HTTP_WARMUP_S,
  opt,
  ownerEmail,
  OWNERS,
  PER_KEY,
  PREFILL,
  QUICK,
  REDIS_URL,
  ROOT,
  SLOT_MS,
  slotStart,
  STAGE_DIR,
  WAIT_IDLE_S,
} from './options';
import { cpuSampler, type Row } from './sampler';
import { claimsAround, mintKeys, seedOwners, type Seeded } from './seed';
import { createBooking } from '@/server/domain/claims/bookingService';

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

export const autocannonVersion = (): string => (createRequire(__filename)('autocannon/package.json') as { version: string }).version;

type HttpRun = { row: Row; rssMaxMb: number; samples: string[] };

async function autocannonRow(
  server: RunningServer,
  mode: string,
  durationS: number,
  warmupS: number,
  request: { method: string; path: string; make: () => { path?: string; headers: Record<string, string>; body?: string } },
): Promise<HttpRun> {
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
          const r = request.make();
          return { ...req, method: request.method, path: r.path ?? request.path, headers: r.headers, body: r.body };
        },
        onResponse: (status: number, body: string) => {
          if ((status < 200 || status >= 300) && samples.length < 3) samples.push(`${status} ${body.slice(0, 300)}`);
        },
      },
    ],
  });
  await vacuumTables(BENCH_DB_URL);
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

/** Rounds of the HTTP comparison (bookings, then the trivial route, in turn). */
const HTTP_ROUNDS = QUICK ? 1 : 4;

/** One row from rounds of one route: counts summed, CPU per request weighted by requests, p50 the median round's, p99 the worst round's. */
function combineRuns(runs: HttpRun[]): HttpRun {
  const rows = runs.map((r) => r.row);
  const ok = rows.reduce((n, r) => n + r.ok, 0);
  const seconds = rows.reduce((n, r) => n + r.seconds, 0);
  const weighted = (pick: (r: Row) => number | null) =>
    rows.every((r) => pick(r) !== null) && ok > 0 ? rows.reduce((n, r) => n + (pick(r) as number) * r.ok, 0) / ok : null;
  const p50s = rows.map((r) => r.lat.p50).sort((a, b) => a - b);
  const busy = rows.every((r) => r.busy !== null) ? rows.reduce((n, r) => n + (r.busy as number), 0) / rows.length : null;
  const errors = rows.map((r) => r.errors).filter((e) => e !== '0');
  return {
    row: {
      ...rows[0],
      seconds,
      ok,
      perSecond: ok / seconds,
      lat: { p50: p50s[Math.floor((p50s.length - 1) / 2)], p99: Math.max(...rows.map((r) => r.lat.p99)) },
      errors: errors.length ? errors.join('; ') : '0',
      clientCpu: weighted((r) => r.clientCpu),
      pgCpu: weighted((r) => r.pgCpu),
      busy,
      note: `${rows.length} rounds; ${rows.map((r) => r.perSecond.toFixed(0)).join(' / ')} per second`,
    },
    rssMaxMb: Math.max(...runs.map((r) => r.rssMaxMb)),
    samples: runs.flatMap((r) => r.samples),
  };
}

/** POST /v1/bookings requests: each takes the next slot of the global counter and a random owner, keys rotated every PER_KEY requests. */
function bookingRequests(keys: string[], tag: string) {
  let bookingSeq = PREFILL;
  return {
    method: 'POST',
    path: '/v1/bookings',
    make: () => {
      const seq = bookingSeq++;
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
  };
}

/**
 * POST /v1/bookings/{id}/reschedule requests (docs/api.md "Reschedule"): bookings made before the
 * run (4 per connection, on the `tag` owners, at slots before the pre-filled ones) are moved, one
 * per request in turn, to the request's own fresh slot (the next index of this route's counter,
 * on owners of their own, pre-filled like the booking route's), with an Idempotency-Key and the
 * same key rotation as the booking route; the same claim runner decides them.
 */
async function rescheduleRequests(db: Db, seeded: Seeded, keys: string[], tag: string) {
  const pool: string[] = [];
  for (let i = 0; i < HTTP_CONNECTIONS * 4; i++) {
    const b = await createBooking(db, seeded.actor, { ownerEmail: ownerEmail(tag, i % OWNERS), meetingClass: CLASS, start: new Date(slotStart(-1 - i)), end: new Date(slotStart(-1 - i) + SLOT_MS) }, new Date(), null);
    pool.push(b.booking_id);
  }
  let seq = PREFILL;
  const pathOf = (n: number) => `/v1/bookings/${pool[n % pool.length]}/reschedule`;
  return {
    method: 'POST',
    path: pathOf(0),
    make: () => {
      const n = seq++;
      if (n - PREFILL >= keys.length * PER_KEY) throw new Error('out of API keys');
      const start = slotStart(n);
      return {
        path: pathOf(n),
        headers: {
          authorization: `Bearer ${keys[Math.floor((n - PREFILL) / PER_KEY)]}`,
          'content-type': 'application/json',
          'idempotency-key': `${tag}-${n}`,
          'x-forwarded-for': randomIp(),
        },
        body: JSON.stringify({ start: new Date(start).toISOString(), end: new Date(start + SLOT_MS).toISOString() }),
      };
    },
  };
}

const randomIp = () => `10.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}.${(Math.random() * 254 + 1) | 0}`;

/** `around`: the claims-around figure of the bookings row, for the notes. */
export type HttpSummary = { rows: Row[]; rssMaxMb: number; hwmMb: number; idleRssMb: number; notes: string[]; around: number | null };

export async function benchHttp(db: Db, seeded: Seeded): Promise<HttpSummary> {
  const notes: string[] = [];
  const app = prepareApp(ROOT, STAGE_DIR, { reuse: flag('reuse-build'), inPlace: flag('in-place'), noBuild: flag('no-build') });
  if (app.buildSeconds !== null) notes.push(`build: \`next build\` of a staged copy took ${app.buildSeconds.toFixed(0)} s`);
  const tag = 'h';
  const ownerIds = await seedOwners(db, seeded, tag, OWNERS);
  const warmupS = HTTP_WARMUP_S;
  // Enough keys for 2,000 bookings/s over warm-up + measurement at PER_KEY requests per key (once per server with --tracing).
  // The reschedule route has keys of its own, as many.
  const nKeys = Math.ceil(((warmupS + DURATION_S) * 2000 * (flag('tracing') ? (opt('tracing-ratio') ? 3 : 2) : 1)) / PER_KEY);
  const t0 = performance.now();
  const keys = await mintKeys(db, seeded, nKeys);
  log(`  minted ${keys.length} API keys in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const profDir = opt('server-prof');
  if (flag('tracing')) return tracingComparison(app.dir, db, seeded, keys, notes, ownerIds, profDir);
  await seedOwners(db, seeded, 'hr', OWNERS);
  const moveKeys = await mintKeys(db, seeded, nKeys);
  const rescheduleRequest = await rescheduleRequests(db, seeded, moveKeys, 'hr');
  const server = await startServer(app.dir, { DATABASE_URL: BENCH_DB_URL, REDIS_URL, TRUST_PROXY: '1', LOG_LEVEL: 'silent' }, profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
  try {
    const pid = server.child.pid!;
    const idle = sampleMemory(pid, 100).stop();
    const rows: Row[] = [];
    let rssMax = 0;
    const bookingRequest = bookingRequests(keys, tag);
    const trivialRequest = {
      method: 'GET',
      path: '/v1/notifications',
      make: () => ({ headers: { authorization: `Bearer ${seeded.apiKey}`, 'x-forwarded-for': randomIp() } }),
    };
    // The two routes alternate in HTTP_ROUNDS rounds, so drift of a shared host (other tenants,
    // dead rows) weighs on both alike; each row sums its rounds.
    const bookingRuns: HttpRun[] = [];
    const moveRuns: HttpRun[] = [];
    const trivialRuns: HttpRun[] = [];
    for (let r = 0; r < HTTP_ROUNDS; r++) {
      const w = r === 0 ? warmupS : 0;
      bookingRuns.push(await autocannonRow(server, 'POST /v1/bookings', DURATION_S / HTTP_ROUNDS, w, bookingRequest));
      moveRuns.push(await autocannonRow(server, 'POST /v1/bookings/{id}/reschedule', DURATION_S / HTTP_ROUNDS, w, rescheduleRequest));
      trivialRuns.push(await autocannonRow(server, 'GET /v1/notifications', DURATION_S / HTTP_ROUNDS, w, trivialRequest));
    }
    const booking = combineRuns(bookingRuns);
    const move = combineRuns(moveRuns);
    const trivial = combineRuns(trivialRuns);
    rows.push(booking.row, move.row, trivial.row);
    notes.push(
      `HTTP: ${HTTP_ROUNDS} alternating rounds of ${fmt(DURATION_S / HTTP_ROUNDS)} s per route (warm-up ${warmupS} s before the first of each); per round, bookings/s ${bookingRuns.map((r) => r.row.perSecond.toFixed(0)).join(', ')}; ` +
        `reschedules/s ${moveRuns.map((r) => r.row.perSecond.toFixed(0)).join(', ')}; GET /v1/notifications/s ${trivialRuns.map((r) => r.row.perSecond.toFixed(0)).join(', ')}`,
    );
    rssMax = Math.max(booking.rssMaxMb, move.rssMaxMb, trivial.rssMaxMb);
    const around = await claimsAround(db, ownerIds);
    const end = sampleMemory(pid, 100).stop();
    return { rows, rssMaxMb: rssMax, hwmMb: end.hwmKb / 1024, idleRssMb: idle.maxRssKb / 1024, notes, around };
  } finally {
    await stopServer(server.child);
  }
}

/** A loopback OTLP/HTTP sink for --tracing: answers 200 and counts what it was sent (no parsing, little CPU). */
async function startOtlpSink(): Promise<{ url: string; requests: () => number; bytes: () => number; close(): Promise<void> }> {
  const http = await import('node:http');
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, bytes: () => bytes, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * --tracing (docs/benchmarks.md "Tracing cost"): production servers on the same database and
 * Redis, one with tracing off and one with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback
 * sink (every trace recorded), plus with --tracing-ratio=R a third one sampling a ratio R of
 * the traces (OTEL_TRACES_SAMPLER=parentbased_traceidratio), loaded in turn with POST
 * /v1/bookings (HTTP_ROUNDS rounds, the order rotated every round, so drift of the shared host
 * weighs on all alike). Rows: server CPU per booking of each; the notes give the ratios and
 * what the sink received. --server-prof=DIR runs every server under --cpu-prof.
 */
async function tracingComparison(appDir: string, db: Db, seeded: Seeded, keys: string[], notes: string[], ownerIds: string[], profDir: string | undefined): Promise<HttpSummary> {
  const sink = await startOtlpSink();
  const env = { DATABASE_URL: BENCH_DB_URL, REDIS_URL, TRUST_PROXY: '1', LOG_LEVEL: 'silent' };
  const nodeArgs = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  // Metrics are counted by every server (there is no switch); the traced ones also serve GET
  // /metrics and are scraped every second while loaded (Prometheus scrapes every 15 s by default).
  const metricsToken = `bench-metrics-${process.pid}`;
  const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'bench-booking', METRICS_TOKEN: metricsToken };
  const ratio = opt('tracing-ratio');
  const configs: { label: string; env: Record<string, string>; scraped: boolean }[] = [
    { label: 'tracing off', env, scraped: false },
    { label: 'tracing on, /metrics scraped every 1 s', env: { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_always_on' }, scraped: true },
    ...(ratio ? [{ label: `tracing on, sampled ${Number(ratio) * 100} %, /metrics scraped`, env: { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio }, scraped: true }] : []),
  ];
  const servers: RunningServer[] = [];
  let scrapes = 0;
  let scraped: RunningServer | null = null;
  const scraper = setInterval(() => {
    if (!scraped) return;
    fetch(`${scraped.baseUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.ok) scrapes++;
      })
      .catch(() => undefined);
  }, 1000);
  try {
    for (const c of configs) servers.push(await startServer(appDir, c.env, nodeArgs));
    const bookingRequest = bookingRequests(keys, 'h');
    const runs: HttpRun[][] = configs.map(() => []);
    for (let r = 0; r < HTTP_ROUNDS; r++) {
      const w = r === 0 ? HTTP_WARMUP_S : 0;
      for (let k = 0; k < configs.length; k++) {
        // Rotate the order every round (with two servers: off-on, on-off, ...).
        const i = (k + r) % configs.length;
        scraped = configs[i].scraped ? servers[i] : null;
        runs[i].push(await autocannonRow(servers[i], `POST /v1/bookings, ${configs[i].label}`, DURATION_S / HTTP_ROUNDS, w, bookingRequest));
        scraped = null;
      }
    }
    const combined = runs.map(combineRuns);
    const cpuOff = combined[0].row.clientCpu;
    const vs = (i: number) => {
      const cpu = combined[i].row.clientCpu;
      const perRound = runs[0].map((o, r) => (o.row.clientCpu && runs[i][r].row.clientCpu ? `${((runs[i][r].row.clientCpu! / o.row.clientCpu - 1) * 100).toFixed(1)} %` : 'n/a'));
      return `${configs[i].label}: ${cpu?.toFixed(3)} ms (${cpuOff && cpu ? `${((cpu / cpuOff - 1) * 100).toFixed(1)} %` : 'n/a'}; per round ${perRound.join(', ')})`;
    };
    notes.push(
      `tracing: server CPU per booking off ${cpuOff?.toFixed(3)} ms; ${configs.slice(1).map((_, i) => vs(i + 1)).join('; ')}; ` +
        `the sink received ${sink.requests()} OTLP requests, ${(sink.bytes() / 1024 / 1024).toFixed(1)} MB; ${scrapes} scrapes of /metrics answered`,
    );
    log(`  ${notes[notes.length - 1]}`);
    const around = await claimsAround(db, ownerIds);
    return { rows: combined.map((c) => c.row), rssMaxMb: Math.max(...combined.map((c) => c.rssMaxMb)), hwmMb: 0, idleRssMb: 0, notes, around };
  } finally {
    clearInterval(scraper);
    await Promise.all(servers.map((s) => stopServer(s.child)));
    await sink.close();
  }
}
