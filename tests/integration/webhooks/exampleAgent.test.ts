import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { expectEnvelope, newCustomer } from '../../helpers/app';
import { call } from '../scheduling/fixtures';
import { withOutboundSetting } from '../../helpers/outbound';

/**
 * examples/agent.ts runs green against a fresh `npm run dev` (scripts/dev.mjs: seeds the demo on
 * an empty embedded database in a temporary folder, prints the demo key, serves in development
 * mode). The example starts its own webhook receiver, so this needs a real server process,
 * not the in-process route handlers. The server gets its own PGlite folder, so the test runs
 * once, in the PGlite project (the PostgreSQL project would only repeat it). The loopback receiver
 * is allowed by `npm run dev`'s default (no OUTBOUND_ALLOW_PRIVATE given); outside development the
 * same registration is refused with a message naming the setting (the second test).
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const children: ChildProcess[] = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'example-agent-'));

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try {
        process.kill(-c.pid!, 'SIGTERM');
      } catch {
        c.kill('SIGTERM');
      }
      await new Promise((r) => c.once('exit', r));
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function pickPort(): Promise<number> {
  for (let p = 3740; p <= 3744; p++) if (await portFree(p)) return p;
  throw new Error('no free port in 3740-3744');
}

function run(cmd: string[], env: Record<string, string>, onLine?: (line: string) => void): { child: ChildProcess; output: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, cmd, { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output: string[] = [];
  const keep = (b: Buffer) => {
    for (const line of b.toString().split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      onLine?.(line);
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

/** One `npm run dev` for the tests of this file (started by the first that needs it). */
let devServer: Promise<{ base: string; port: number; key: string }> | undefined;
function startDev() {
  devServer ??= (async () => {
    const port = await pickPort();
    let key = '';
    const dev = run(['scripts/dev.mjs'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'development',
      DATABASE_URL: '',
      DB_DRIVER: '',
      PGLITE_DIR: path.join(tmp, 'pglite'),
      DATA_DIR: path.join(tmp, 'data'),
      REDIS_URL: '',
      // Neither outbound setting: the example's loopback receiver is allowed by npm run dev's default.
      OUTBOUND_ALLOW_PRIVATE: '',
      WEBHOOKS_ALLOW_PRIVATE: '',
      NEXT_TELEMETRY_DISABLED: '1',
    }, (line) => {
      const m = /Demo key\s+(ak_[A-Za-z0-9_-]+)/.exec(line);
      if (m) key = m[1];
    });
    const deadline = Date.now() + 180_000;
    while (!key) {
      if (dev.child.exitCode !== null) throw new Error(`npm run dev exited:\n${dev.output.slice(-20).join('\n')}`);
      if (Date.now() > deadline) throw new Error(`no demo key printed:\n${dev.output.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return { base: `http://127.0.0.1:${port}`, port, key };
  })();
  return devServer;
}

const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

it('examples/agent.ts: search, counter-proposal, window hold, confirm, signed webhook, notifications', { timeout: 300_000 }, async (ctx) => {
  if (process.env.DB_DRIVER === 'postgres') ctx.skip('runs once, in the PGlite project: it starts `npm run dev` on its own embedded database');
  const { base, port, key } = await startDev();

  const example = run([tsx, 'examples/agent.ts', '--base-url', base, '--key', key, '--webhook-port', String(port + 10)], {});
  const code = await example.exited;
  const out = example.output.join('\n');
  expect(code, out).toBe(0);
  expect(out).toContain('ARBITRATION_REJECTED (COUNTER_PROPOSED)');
  expect(out).toMatch(/received booking\.confirmed \(Webhook-Id [0-9a-f-]+\), signature verified/);
  expect(out).toContain('Draining notifications');
  expect(out).toContain('Done: every step worked');
});

// docs/agents.md "Use it from an OpenAI-compatible host", "from Claude" and "from the TypeScript
// client" include these files (tests/unit/platform/agentsDocExamples.test.ts keeps them identical);
// each runs against the dev server, a scripted stand-in playing the model.
it('the docs/agents.md examples run against npm run dev: OpenAI-compatible host, Claude, TypeScript client', { timeout: 300_000 }, async (ctx) => {
  if (process.env.DB_DRIVER === 'postgres') ctx.skip('runs once, in the PGlite project: it starts `npm run dev` on its own embedded database');
  const { base, key } = await startDev();
  const runExample = async (file: string) => {
    const r = run([tsx, file], { SCHEDULER_URL: base, SCHEDULER_API_KEY: key });
    const code = await r.exited;
    const out = r.output.join('\n');
    expect(code, `${file}:\n${out}`).toBe(0);
    return out;
  };
  const openai = await runExample('examples/openai-host.ts');
  expect(openai).toMatch(/^\d+ tools offered$/m);
  expect(openai).toMatch(/search_availability: refused INVALID_MEETING_CLASS \(valid: .*internal.*\)/);
  expect(openai).toMatch(/search_availability: ok, first slot \d{4}-\d\d-\d\dT/);
  const claude = await runExample('examples/claude.ts');
  expect(claude).toContain('search_availability: ok');
  expect(claude).toContain('create_booking: ok');
  expect(claude).toContain('cancel_booking: ok');
  expect(claude).toMatch(/booked and cancelled \S+ over \d+ tools/);
  const client = await runExample('examples/typescript-client.ts');
  expect(client).toMatch(/search: \d+ slots, first \d{4}-/);
  expect(client).toMatch(/^booked \S+$/m);
  expect(client).toMatch(/^refused: [A-Za-z_]+/m);
  expect(client).toContain('cancelled');
});

it('outside development the example\'s loopback receiver is refused, and the refusal names the setting', async () => {
  // This process is not `npm run dev` (NODE_ENV=test): the default is the production one, off.
  const admin = await newCustomer();
  await withOutboundSetting(undefined, async () => {
    const res = await call('POST', '/v1/webhooks', { key: admin.key, body: { url: 'http://127.0.0.1:3750/', events: ['booking.confirmed'] } });
    const err = expectEnvelope(res, 400, 'WEBHOOK_URL_REFUSED');
    expect(err.reason).toBe('PRIVATE_ADDRESS');
    expect(err.message).toContain('OUTBOUND_ALLOW_PRIVATE=1');
  });
});
