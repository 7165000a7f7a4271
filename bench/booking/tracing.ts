/**
 * --tracing (docs/benchmarks.md "Tracing cost"): production servers on the same database and
 * Redis, loaded in turn with POST /v1/bookings (HTTP_ROUNDS rounds, the order rotated every
 * round, so drift of the shared host weighs on all alike):
 *
 *   tracing off                      no OTEL_EXPORTER_OTLP_ENDPOINT, /metrics not served
 *   tracing off, /metrics scraped    METRICS_TOKEN set, /metrics scraped: the like-for-like base
 *   tracing on, /metrics scraped     every trace recorded, spans to a loopback OTLP sink
 *   tracing on, sampled R            with --tracing-ratio=R (OTEL_TRACES_SAMPLER=parentbased_traceidratio)
 *   tracing on, never sampled        with --tracing-never (parentbased_always_off): the SDK
 *                                    registered and Next.js's and our wrappers' work, no span kept
 *
 * Metrics are counted by every server (there is no switch); the scraped ones are scraped every
 * --scrape-interval=S seconds while loaded (default 1; Prometheus's example configuration
 * scrapes every 15 s). Rows: server CPU per booking of each; the notes give the ratios against
 * both "off" rows, per round, and what the sink received. --server-prof=DIR runs every server
 * under --cpu-prof (the notes name each server's pid, the profile's file name).
 */
import type { Db } from '@/db/client';
import { log } from '../lib/measure';
import { startServer, stopServer, type RunningServer } from '../lib/nextServer';
import { autocannonRow, bookingRequests, combineRuns, HTTP_ROUNDS, type HttpRun, type HttpSummary } from './load';
import { BENCH_DB_URL, flag, HTTP_WARMUP_S, opt, REDIS_URL, DURATION_S } from './options';
import { claimsAround, type Seeded } from './seed';

/** A loopback OTLP/HTTP sink: answers 200 and counts what it was sent (no parsing, little CPU). */
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

type Config = { key: string; label: string; env: Record<string, string>; scraped: boolean };

/** The servers compared (see the header); also how many key sets the run needs. */
export function tracingConfigs(env: Record<string, string>, sinkUrl: string, metricsToken: string): Config[] {
  const scrapedEnv = { ...env, METRICS_TOKEN: metricsToken };
  const traced = { ...scrapedEnv, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_SERVICE_NAME: 'bench-booking' };
  const ratio = opt('tracing-ratio');
  // --tracing-env=K=V,K=V: extra rows with these settings on a traced server (e.g. the SDK's OTEL_BSP_*).
  const extraEnv = Object.fromEntries((opt('tracing-env') ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const extra = Object.keys(extraEnv).length ? `, ${Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`).join(' ')}` : '';
  const on = { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_always_on' };
  const sampled = ratio ? { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio } : null;
  const all: Config[] = [
    { key: 'off', label: 'tracing off', env, scraped: false },
    { key: 'off-scraped', label: 'tracing off, /metrics scraped', env: scrapedEnv, scraped: true },
    { key: 'on', label: 'tracing on, /metrics scraped', env: on, scraped: true },
    ...(sampled ? [{ key: 'sampled', label: `tracing on, sampled ${Number(ratio) * 100} %, /metrics scraped`, env: sampled, scraped: true }] : []),
    ...(flag('tracing-never') ? [{ key: 'never', label: 'tracing on, never sampled, /metrics scraped', env: { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, scraped: true }] : []),
    ...(extra ? [{ key: 'on-env', label: `tracing on${extra}, /metrics scraped`, env: { ...on, ...extraEnv }, scraped: true }] : []),
    ...(extra && sampled ? [{ key: 'sampled-env', label: `tracing on, sampled ${Number(ratio) * 100} %${extra}, /metrics scraped`, env: { ...sampled, ...extraEnv }, scraped: true }] : []),
  ];
  // --tracing-rows=off-scraped,on,...: only these (the first is the base the others are compared with).
  const rows = opt('tracing-rows')?.split(',');
  return rows ? rows.map((k) => all.find((c) => c.key === k) ?? (() => { throw new Error(`--tracing-rows: no row ${k}`); })()) : all;
}

const pct = (a: number | null, b: number | null) => (a && b ? `${((a / b - 1) * 100).toFixed(1)} %` : 'n/a');

export async function tracingComparison(appDir: string, db: Db, seeded: Seeded, keys: string[], notes: string[], ownerIds: string[], profDir: string | undefined): Promise<HttpSummary> {
  const sink = await startOtlpSink();
  const env = { DATABASE_URL: BENCH_DB_URL, REDIS_URL, TRUST_PROXY: '1', LOG_LEVEL: 'silent' };
  const nodeArgs = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const metricsToken = `bench-metrics-${process.pid}`;
  const configs = tracingConfigs(env, sink.url, metricsToken);
  const scrapeMs = Number(opt('scrape-interval') ?? 1) * 1000;
  const servers: RunningServer[] = [];
  let scrapes = 0;
  let scraped: RunningServer | null = null;
  const scrape = () => {
    if (!scraped) return;
    fetch(`${scraped.baseUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.ok) scrapes++;
      })
      .catch(() => undefined);
  };
  const scraper = setInterval(scrape, scrapeMs);
  try {
    for (const c of configs) servers.push(await startServer(appDir, c.env, nodeArgs));
    notes.push(`tracing servers (pid: configuration): ${configs.map((c, i) => `${servers[i].child.pid}: ${c.label}`).join('; ')}`);
    const bookingRequest = bookingRequests(keys, 'h');
    const runs: HttpRun[][] = configs.map(() => []);
    for (let r = 0; r < HTTP_ROUNDS; r++) {
      const w = r === 0 ? HTTP_WARMUP_S : 0;
      for (let k = 0; k < configs.length; k++) {
        // Rotate the order every round.
        const i = (k + r) % configs.length;
        scraped = configs[i].scraped ? servers[i] : null;
        runs[i].push(await autocannonRow(servers[i], `POST /v1/bookings, ${configs[i].label}`, DURATION_S / HTTP_ROUNDS, w, bookingRequest));
        scraped = null;
      }
    }
    const combined = runs.map(combineRuns);
    const cpu = combined.map((c) => c.row.clientCpu);
    const base = configs.findIndex((c) => c.key === 'off-scraped');
    const vs = (i: number, base: number) => {
      const perRound = runs[base].map((o, r) => pct(runs[i][r].row.clientCpu, o.row.clientCpu));
      return `${configs[i].label}: ${cpu[i]?.toFixed(3)} ms (${pct(cpu[i], cpu[base])} against "${configs[base].label}"; per round ${perRound.join(', ')})`;
    };
    notes.push(
      // Against "off, /metrics scraped" (like for like) when it is there, else against the first row.
      `tracing: server CPU per booking ${configs[0].label} ${cpu[0]?.toFixed(3)} ms; ${configs.slice(1).map((_, i) => vs(i + 1, i + 1 === base || base < 0 ? 0 : base)).join('; ')}; ` +
        `per round (ms): ${configs.map((c, i) => `${c.label} ${runs[i].map((x) => x.row.clientCpu?.toFixed(2)).join(' / ')}`).join('; ')}; ` +
        `the sink received ${sink.requests()} OTLP requests, ${(sink.bytes() / 1024 / 1024).toFixed(1)} MB; ${scrapes} scrapes of /metrics answered (every ${scrapeMs / 1000} s)`,
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
