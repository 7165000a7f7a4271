/**
 * Build and serve a copy of the app for HTTP benchmarks (the pattern of
 * bench/availability.ts): the checkout is staged with rsync into a directory
 * under $TMPDIR (node_modules hard-linked, since Turbopack refuses a symlinked
 * one), built with `next build` there, and started with scripts/serve.mjs, so
 * the benchmark neither clobbers nor is clobbered by other builds of .next in
 * the working tree.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, log } from './measure';

function run(cmd: string, args: string[], cwd: string): void {
  log(`  $ (cd ${cwd} && ${cmd} ${args.join(' ')})`);
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
}

/** Stage `root` into `stageDir` and build it there (or reuse an existing build). Returns the app directory and build seconds (null when reused). */
export function prepareApp(root: string, stageDir: string, opts: { reuse: boolean; inPlace: boolean; noBuild: boolean }): { dir: string; buildSeconds: number | null } {
  const t0 = performance.now();
  if (opts.inPlace) {
    if (!opts.noBuild) run('npm', ['run', 'build'], root);
    return { dir: root, buildSeconds: opts.noBuild ? null : (performance.now() - t0) / 1000 };
  }
  if (opts.reuse && fs.existsSync(path.join(stageDir, '.next', 'BUILD_ID'))) {
    log(`  reusing the staged build in ${stageDir}`);
    return { dir: stageDir, buildSeconds: null };
  }
  fs.mkdirSync(stageDir, { recursive: true });
  const excludes = ['node_modules', '.next', '.data', '.git', '.xdg', 'test-results', '.test-results', 'playwright-report', 'tsconfig.tsbuildinfo'];
  run('rsync', ['-a', '--delete', ...excludes.flatMap((e) => ['--exclude', `/${e}`]), `${root}/`, `${stageDir}/`], root);
  fs.rmSync(path.join(stageDir, 'node_modules'), { recursive: true, force: true });
  run('cp', ['-al', path.join(root, 'node_modules'), path.join(stageDir, 'node_modules')], root);
  run('npx', ['next', 'build'], stageDir);
  return { dir: stageDir, buildSeconds: (performance.now() - t0) / 1000 };
}

export type RunningServer = { baseUrl: string; child: ChildProcess; logs: string[] };

/**
 * The node flags `npm start` gives the server (package.json "start", e.g. --max-semi-space-size;
 * docs/operations.md "Memory settings"), so a bench measures the server as production runs it.
 */
function startScriptNodeArgs(root = path.resolve(import.meta.dirname, '..', '..')): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ?? '';
  const m = /^node\s+(.*?)\s*scripts\/serve\.mjs/.exec(start);
  return m ? m[1].split(/\s+/).filter((a) => a.startsWith('--')) : [];
}

/** Start scripts/serve.mjs from `appDir` with `env` added and `npm start`'s node flags (on `port`, else a free one); resolves once GET /api/health answers 200. */
export async function startServer(appDir: string, env: Record<string, string | undefined>, nodeArgs: string[] = [], fixedPort?: number): Promise<RunningServer> {
  const port = fixedPort ?? (await freePort());
  const full: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };
  for (const k of ['REDIS_URL', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN', 'DB_DRIVER', 'PGLITE_DIR', 'DATABASE_URL', 'TRUST_PROXY', 'DB_POOL_MAX']) delete full[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) full[k] = v;
  const serve = path.join(appDir, 'scripts', 'serve.mjs');
  log(`  starting node ${[...startScriptNodeArgs(), ...nodeArgs, 'scripts/serve.mjs'].join(' ')} on port ${port} (cwd ${appDir})`);
  const child = spawn('node', [...startScriptNodeArgs(), ...nodeArgs, serve], { cwd: appDir, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const keep = (b: Buffer) => {
    logs.push(b.toString());
    if (logs.length > 200) logs.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${logs.join('')}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`);
      await res.text();
      if (res.ok) return { baseUrl, child, logs };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stopServer(child);
  throw new Error(`server did not become healthy in 60 s:\n${logs.join('')}`);
}

/** SIGTERM (serve.mjs drains and closes the database), SIGKILL after 15 s. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
