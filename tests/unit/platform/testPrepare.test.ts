import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The preparation step `npm test` and .ci/run share (scripts/test-prepare.mjs):
 * run against a PATH without the programs (and without apt-get, so it cannot
 * install), it stops at once with one line naming the command, exit code 3; and
 * `npm test`'s runner (scripts/test-all.mjs) stops there before any test runs.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function binDir(programs: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prepare-path-'));
  dirs.push(dir);
  for (const p of programs) fs.writeFileSync(path.join(dir, p), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return dir;
}

function run(script: string, pathDirs: string[], extraEnv: Record<string, string> = {}) {
  const started = performance.now();
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', script)], {
    cwd: ROOT,
    env: { HOME: os.tmpdir(), NODE_ENV: 'test', PATH: pathDirs.join(path.delimiter), ...extraEnv },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { ...r, ms: performance.now() - started };
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');

describe('scripts/test-prepare.mjs', () => {
  it('with neither program on PATH and no way to install: one line naming the apt-get command, exit 3', () => {
    const r = run('test-prepare.mjs', [binDir([])]);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/apt-get install -y chromium radicale`/);
    expect(r.stderr).toMatch(/chromium \(browser for the Playwright tests\) and radicale \(CalDAV server/);
  });

  it('names only what is missing', () => {
    const r = run('test-prepare.mjs', [binDir(['chromium'])]);
    expect(r.status).toBe(3);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/apt-get install -y radicale`/);
    expect(r.stderr).not.toMatch(/chromium/);
  });

  it('TEST_PREPARE_INSTALL=0 never installs, even where apt-get exists', () => {
    // a fake apt-get that would "install" by failing loudly if ever called
    const bin = binDir(['chromium']);
    fs.writeFileSync(path.join(bin, 'apt-get'), '#!/bin/sh\necho apt-get was called >&2\nexit 99\n', { mode: 0o755 });
    const r = run('test-prepare.mjs', [bin], { TEST_PREPARE_INSTALL: '0' });
    expect(r.status).toBe(3);
    expect(r.stderr).not.toMatch(/apt-get was called/);
    expect(lines(r.stderr)).toHaveLength(1);
  });

  it('with both programs on PATH: ready, and says which paths the runners get', () => {
    const bin = binDir(['chromium', 'radicale']);
    const r = run('test-prepare.mjs', [bin]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`CHROMIUM_PATH=${path.join(bin, 'chromium')}`);
    expect(r.stdout).toContain(`RADICALE_PATH=${path.join(bin, 'radicale')}`);
  });
});

describe('npm test (scripts/test-all.mjs) without the programs', () => {
  it('stops before any runner starts, with the same one line and exit code', () => {
    const r = run('test-all.mjs', [binDir([])]);
    expect(r.status).toBe(3);
    expect(r.stdout).not.toMatch(/=== vitest|=== playwright/);
    expect(lines(r.stderr)).toEqual([expect.stringMatching(/apt-get install -y chromium radicale`/)]);
  });
});
