/**
 * Load generation shared by the HTTP rows (http.ts) and the tracing comparison (tracing.ts):
 * one autocannon measurement with the server's CPU, memory and PostgreSQL's CPU sampled
 * (autocannonRow), rounds combined into one row, and the POST /v1/bookings requests.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fmt, loadAvg, log, sampleMemory, vacuumTables, waitIdle } from '../lib/measure';
import type { RunningServer } from '../lib/nextServer';
import { BENCH_DB_URL, CLASS, HTTP_CONNECTIONS, ownerEmail, OWNERS, PER_KEY, PREFILL, QUICK, SLOT_MS, slotStart, WAIT_IDLE_S } from './options';
import { cpuSampler, type Row } from './sampler';

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

export type HttpRun = { row: Row; rssMaxMb: number; samples: string[] };

export async function autocannonRow(
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
export const HTTP_ROUNDS = QUICK ? 1 : 4;

/** One row from rounds of one route: counts summed, CPU per request weighted by requests, p50 the median round's, p99 the worst round's. */
export function combineRuns(runs: HttpRun[]): HttpRun {
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
export function bookingRequests(keys: string[], tag: string) {
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


export const randomIp = () => `10.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}.${(Math.random() * 254 + 1) | 0}`;

/** `around`: the claims-around figure of the bookings row, for the notes. */
export type HttpSummary = { rows: Row[]; rssMaxMb: number; hwmMb: number; idleRssMb: number; notes: string[]; around: number | null };
