/**
 * The framework's floor per request (issue 27; docs/benchmarks.md "Framework floor"): server CPU per request of a route that does nothing, under 32 keep-alive
 * connections (node:http), after a warm-up, read from /proc/PID/stat:
 *   - bare Next.js: a new app with this checkout's `next` and one route handler returning a
 *     constant JSON (`GET /api/live`), built with `next build` and run with `next start`;
 *   - this service: its production build served by scripts/serve.mjs, `GET /api/health/live`
 *     (the same constant JSON; no key, no database, no rate limit);
 *   - with --peer=PORT/PATH, a server already running on that loopback port (e.g. floyd-run/engine:
 *     --peer=3500/), its process found by the port.
 * Each is measured --passes times (default 2), interleaved.
 *
 *   npx tsx bench/framework-floor.ts [--app-dir=DIR | --in-place --no-build] [--requests=20000] [--passes=2] [--peer=3500/]
 * Environment: BENCH_DATABASE_URL (the service starts on it; default postgres://postgres@127.0.0.1:5432/bench).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureDatabase, fmt, freePort, log, machineLine, processCpuMs, textTable } from './lib/measure';
import { prepareApp, startServer, stopServer } from './lib/nextServer';

const ROOT = path.resolve(__dirname, '..');
const ARGV = process.argv.slice(2);
const flag = (name: string) => ARGV.includes(`--${name}`);
const opt = (name: string) => ARGV.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const REQUESTS = Number(opt('requests') ?? 20_000);
const PASSES = Number(opt('passes') ?? 2);
const CONNECTIONS = 32;
const WARMUP = 3_000;
const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const BARE_DIR = path.join(os.tmpdir(), 'agent-scheduler-bench-bare-next');

type Target = { name: string; port: number; path: string; pid: number };

/** The pid listening on a loopback TCP port (ss), for servers whose launcher forks. */
function pidByPort(port: number): number | undefined {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(out);
  return m ? Number(m[1]) : undefined;
}

/** `n` GETs over CONNECTIONS keep-alive sockets; the statuses seen. */
async function hammer(agent: http.Agent, t: Target, n: number): Promise<Record<number, number>> {
  let left = n;
  const statuses: Record<number, number> = {};
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: t.port, path: t.path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) {
        const s = await one();
        statuses[s] = (statuses[s] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

async function measure(t: Target): Promise<string[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  await hammer(agent, t, WARMUP);
  const c0 = processCpuMs(t.pid)!;
  const t0 = performance.now();
  const statuses = await hammer(agent, t, REQUESTS);
  const ms = performance.now() - t0;
  const cpu = processCpuMs(t.pid)! - c0;
  agent.destroy();
  const ok = statuses[200] ?? 0;
  if (ok !== REQUESTS) throw new Error(`${t.name}: ${JSON.stringify(statuses)} (expected ${REQUESTS} x 200)`);
  log(`  ${t.name}: ${fmt((cpu / REQUESTS) * 1000)} us/request, ${fmt((REQUESTS / ms) * 1000)} requests/s`);
  return [t.name, `GET ${t.path}`, fmt((cpu / REQUESTS) * 1000), fmt((REQUESTS / ms) * 1000)];
}

/** A new Next.js app with one route handler, built with this checkout's `next` (node_modules hard-linked: Turbopack refuses a symlink). */
function buildBareNext(): void {
  fs.mkdirSync(path.join(BARE_DIR, 'app', 'api', 'live'), { recursive: true });
  fs.writeFileSync(path.join(BARE_DIR, 'package.json'), JSON.stringify({ name: 'bare-next', private: true }));
  fs.writeFileSync(path.join(BARE_DIR, 'next.config.mjs'), 'export default {};\n');
  fs.writeFileSync(
    path.join(BARE_DIR, 'app', 'api', 'live', 'route.ts'),
    "export const dynamic = 'force-dynamic';\nexport function GET(): Response {\n  return Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });\n}\n",
  );
  const tsconfig = { compilerOptions: { target: 'ES2022', lib: ['dom', 'esnext'], strict: true, module: 'esnext', moduleResolution: 'bundler', jsx: 'preserve', skipLibCheck: true, noEmit: true, isolatedModules: true, esModuleInterop: true, resolveJsonModule: true, incremental: false }, include: ['**/*.ts'], exclude: ['node_modules'] };
  fs.writeFileSync(path.join(BARE_DIR, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  if (!fs.existsSync(path.join(BARE_DIR, 'node_modules'))) execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(BARE_DIR, 'node_modules')]);
  log(`  building the bare Next.js app in ${BARE_DIR}`);
  execFileSync(process.execPath, [path.join(BARE_DIR, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], { cwd: BARE_DIR, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
}

async function startBareNext(): Promise<{ child: ChildProcess; target: Target }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(BARE_DIR, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: BARE_DIR,
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/live`);
      await res.text();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the bare Next.js app did not start in 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, target: { name: 'bare Next.js (next start)', port, path: '/api/live', pid: pidByPort(port) ?? child.pid! } };
}

async function main(): Promise<void> {
  log(machineLine());
  buildBareNext();
  const appDir = opt('app-dir') ?? prepareApp(ROOT, path.join(os.tmpdir(), 'agent-scheduler-bench-floor'), { reuse: flag('reuse-build'), inPlace: flag('in-place'), noBuild: flag('no-build') }).dir;
  await ensureDatabase(BENCH_DB_URL);
  const ours = await startServer(appDir, { DATABASE_URL: BENCH_DB_URL, TRUST_PROXY: '1' });
  const bare = await startBareNext();
  const targets: Target[] = [bare.target, { name: 'this service (scripts/serve.mjs)', port: Number(new URL(ours.baseUrl).port), path: '/api/health/live', pid: ours.child.pid! }];
  const peer = opt('peer');
  if (peer) {
    const [port, ...rest] = peer.split('/');
    const pid = pidByPort(Number(port));
    if (!pid) throw new Error(`--peer: nothing listens on port ${port}`);
    targets.push({ name: `peer on port ${port}`, port: Number(port), path: `/${rest.join('/')}`, pid });
  }
  const rows: string[][] = [];
  try {
    for (let pass = 1; pass <= PASSES; pass++) {
      log(`pass ${pass}`);
      for (const t of targets) rows.push([`${pass}`, ...(await measure(t))]);
    }
  } finally {
    bare.child.kill('SIGTERM');
    await stopServer(ours.child);
  }
  console.log(`\nServer CPU per request of a route that does nothing (${REQUESTS} GETs, ${CONNECTIONS} keep-alive connections, after ${WARMUP} of warm-up)`);
  console.log(textTable(['pass', 'server', 'route', 'server CPU us/request', 'requests/s'], rows, 3));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
