/**
 * The stack's memory floor (docs/benchmarks.md "Memory floor"; how it was found:
 * docs/benchmarks/history/2026-11-26-server-memory.md):
 * bench/memory.ts's load shape (idle, a light warm-up from 8 clients, then rounds of N-way races,
 * each racer on its own keep-alive connection with its own X-Forwarded-For and JSON body) against
 * any server, e.g. a minimal Next.js app with one route handler. It reports the server's VmRSS at
 * idle, after the warm-up and at its peak per round, and the races' answers/s and p99.
 *
 *   flock /tmp/heavy.lock npx tsx bench/memory-floor.ts --app-dir=/tmp/hm-floor [--serve=serve.mjs]
 *       [--path=/v1/race] [--n=500] [--rounds=10] [--node-args="..."] [--env=K=V,K=V]
 *
 * The server is started as `node [node-args] <app-dir>/<serve>` with PORT (BENCH_PORT or a free
 * port), HOST=127.0.0.1, NODE_ENV=production and DATABASE_URL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/memory_bench); it must answer GET <path> with 200 when ready.
 * The app itself is not part of this repository (it is written for the measurement;
 * docs/benchmarks/history/2026-11-26-server-memory.md describes it).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { envOpt, nodeArgsOpt, opt } from './booking/options';
import { sendText } from './lib/httpClient';
import { fmt, freePort, loadAvg, log, memoryKb, sampleMemory, stats } from './lib/measure';

const APP_DIR = path.resolve(opt('app-dir') ?? '/tmp/hm-floor');
const SERVE = opt('serve') ?? 'serve.mjs';
const PATH = opt('path') ?? '/v1/race';
const N = Number(opt('n') ?? 500);
const ROUNDS = Number(opt('rounds') ?? 10);
const NODE_ARGS = nodeArgsOpt();
const EXTRA_ENV = envOpt();
const DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/memory_bench';

/** A racer's POST: its own connection and X-Forwarded-For, a fresh Idempotency-Key. */
const post = (agent: http.Agent, port: number, xff: string, body: unknown) =>
  sendText(agent, port, 'POST', PATH, { 'x-forwarded-for': xff, 'idempotency-key': crypto.randomUUID() }, body);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', DATABASE_URL: DB_URL, ...EXTRA_ENV };
  log(`starting node ${[...NODE_ARGS, SERVE].join(' ')} in ${APP_DIR} on port ${port}`);
  const child = spawn('node', [...NODE_ARGS, path.join(APP_DIR, SERVE)], { cwd: APP_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  child.stdout!.on('data', (b: Buffer) => logs.push(b.toString()));
  child.stderr!.on('data', (b: Buffer) => logs.push(b.toString()));
  const pid = child.pid!;
  const mb = () => (memoryKb(pid)?.rss ?? 0) / 1024;
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${logs.join('')}`);
      if (Date.now() > deadline) throw new Error(`server not ready in 60 s:\n${logs.join('')}`);
      const ok = await fetch(`http://127.0.0.1:${port}${PATH}`).then((r) => r.text().then(() => r.ok), () => false);
      if (ok) break;
      await sleep(250);
    }
    await sleep(5000);
    const idle: number[] = [];
    for (let i = 0; i < 6; i++) { idle.push(mb()); await sleep(500); }
    const idleMb = idle.reduce((a, b) => a + b, 0) / idle.length;
    log(`idle RSS ${fmt(idleMb)} MB (load ${loadAvg()})`);

    let xff = 0;
    const nextXff = () => `10.${(xff >> 16) & 255}.${(xff >> 8) & 255}.${xff++ & 255}`;
    const body = (i: number) => ({ owner_email: `owner${i}@floor.test`, meeting_class: 'floor', start: new Date(Date.now() + i * 60_000).toISOString(), end: new Date(Date.now() + i * 60_000 + 1_800_000).toISOString() });
    // Warm-up: 8 clients x 50 requests (bench/memory.ts sends 400 from 8 clients).
    const warmAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    await Promise.all(Array.from({ length: 8 }, async (_, c) => { for (let i = 0; i < 50; i++) await post(warmAgent, port, nextXff(), body(c * 50 + i)); }));
    warmAgent.destroy();
    await sleep(5000);
    const warmMb = mb();
    log(`after warm-up RSS ${fmt(warmMb)} MB`);

    const rows: { wallMs: number; p99: number; peak: number; ok: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
      const sampler = sampleMemory(pid, 50);
      const t0 = performance.now();
      const res = await Promise.all(Array.from({ length: N }, (_, i) => post(agent, port, nextXff(), body(i))));
      const wallMs = performance.now() - t0;
      await sleep(500);
      const m = sampler.stop();
      agent.destroy();
      const lat = stats(res.map((r) => r.ms));
      const ok = res.filter((r) => r.status === 200).length;
      rows.push({ wallMs, p99: lat.p99, peak: m.maxRssKb / 1024, ok });
      log(`race ${round}: wall ${fmt(wallMs)} ms (${fmt(N / (wallMs / 1000))} answers/s) p99 ${fmt(lat.p99)} ms, ${ok}/${N} answered 200; peak RSS ${fmt(m.maxRssKb / 1024)} MB`);
      await sleep(1500);
    }
    const wall = rows.reduce((a, r) => a + r.wallMs, 0);
    const hwm = (memoryKb(pid)?.hwm ?? 0) / 1024;
    log(`\nfloor ${APP_DIR} ${NODE_ARGS.join(' ')}: idle ${fmt(idleMb)} MB, warm ${fmt(warmMb)} MB, peak ${fmt(Math.max(...rows.map((r) => r.peak)))} MB (per round: ${rows.map((r) => fmt(r.peak)).join(', ')}), VmHWM ${fmt(hwm)} MB; ${fmt((N * rows.length) / (wall / 1000))} answers/s, median p99 ${fmt(stats(rows.map((r) => r.p99)).p50)} ms; all 200: ${rows.every((r) => r.ok === N) ? 'yes' : 'NO'}; load ${loadAvg()}`);
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
