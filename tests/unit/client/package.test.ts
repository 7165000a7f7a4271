import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

/**
 * clients/typescript is a package (issue 24 item 7): `npm run client:pack` builds and packs it
 * outside the checkout (issue 44 item 8: nothing is written into clients/typescript), the tarball
 * installs into a scratch project with no network (openapi-fetch, its one dependency, comes from
 * this repository's node_modules as a folder install), and a search, a booking and an error
 * branch type-check with this repository's tsc under both NodeNext and Bundler resolution;
 * the built ES module then runs under plain Node (import, and require through require(esm)).
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const CHECK = `import { createSchedulerClient, type OperationError } from '@agent-scheduler/client';

const api = createSchedulerClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'ak_x', headers: { 'x-trace': 'scratch' }, retry: { maxRetries: 1 } });

export async function search(): Promise<string | null> {
  const { data, error } = await api.POST('/v1/availability/search', {
    body: { owner_email: 'o@example.com', meeting_class: 'internal', duration_minutes: 30, window: { start: '2030-01-07T09:00:00+01:00', end: '2030-01-07T12:00:00+01:00' } },
  });
  if (error) return error.code === 'NO_SLOTS_AVAILABLE' ? (error.next_available?.start ?? null) : error.error.message;
  return data.slots[0]?.start ?? null;
}

export async function book(): Promise<string> {
  const { data, error } = await api.POST('/v1/bookings', {
    body: { owner_email: 'o@example.com', meeting_class: 'internal', start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' },
    headers: { 'idempotency-key': 'booking-1' },
  });
  if (!error) return data.status === 'pending_approval' ? data.proposal_id : data.booking_id;
  const refusal: OperationError<'/v1/bookings', 'post'> = error;
  switch (refusal.code) {
    case 'ARBITRATION_REJECTED':
      return [refusal.error.reason, refusal.alternatives?.[0]?.start, refusal.conflicts?.length, refusal.next_available?.start].join(' ');
    case 'INVALID_MEETING_CLASS':
      // @ts-expect-error alternatives belong to ARBITRATION_REJECTED only
      return String(refusal.alternatives);
    default:
      return refusal.code;
  }
}

// @ts-expect-error not a path of the API
void api.GET('/v1/nope');
`;

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

/** Every file under clients/typescript with its modification time: what packing must leave as it was. */
function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) out[f] = fs.statSync(path.join(dir, f)).mtimeMs;
  return out;
}

it('packs outside the checkout, installs offline from the tarball, and type-checks under NodeNext and Bundler', { timeout: 600_000 }, () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const pkg = path.join(ROOT, 'clients/typescript');
  const before = snapshot(pkg);
  const out = path.join(tmp, 'out');
  // Started from the scratch directory as a user's project would (npm --prefix <checkout>): the tarball lands there.
  const tarball = run(npm, ['--prefix', ROOT, 'run', '-s', 'client:pack', '--', '--out', out], tmp).trim();
  expect(path.dirname(tarball)).toBe(out);
  expect(snapshot(pkg)).toEqual(before);
  const files = run('tar', ['-tzf', tarball], tmp)
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''));
  expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'dist/errors.d.ts', 'dist/retry.js']));
  expect(files.filter((f) => f.startsWith('src/') || f === 'tsconfig.json')).toEqual([]);

  const project = path.join(tmp, 'scratch');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  run(npm, ['install', '--offline', '--no-audit', '--no-fund', tarball, path.join(ROOT, 'node_modules/openapi-fetch')], project);
  const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@agent-scheduler/client/package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(Object.keys(installed.dependencies)).toEqual(['openapi-fetch']);

  fs.writeFileSync(path.join(project, 'check.ts'), CHECK);
  const base = { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2024', 'DOM'], types: [], skipLibCheck: false };
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  for (const [name, options] of [
    ['nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }],
    ['bundler', { module: 'ESNext', moduleResolution: 'Bundler' }],
  ] as const) {
    fs.writeFileSync(path.join(project, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...base, ...options }, files: ['check.ts'] }));
    run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], project);
  }

  // the built module runs: import (ESM) and require (require(esm), Node >= 20.19)
  const esm = run(process.execPath, ['--input-type=module', '-e', "import { createSchedulerClient } from '@agent-scheduler/client'; console.log(typeof createSchedulerClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'ak_x' }).POST)"], project);
  expect(esm.trim()).toBe('function');
  const cjs = run(process.execPath, ['-e', "console.log(typeof require('@agent-scheduler/client').createSchedulerClient)"], project);
  expect(cjs.trim()).toBe('function');
});
