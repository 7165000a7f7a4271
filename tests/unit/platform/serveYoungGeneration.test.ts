import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * scripts/serve.mjs sizes a production server's young generation however it is started
 * (docs/operations.md "Memory settings"): without `--max-semi-space-size` on node's command line
 * or in NODE_OPTIONS it runs again, in the same process, with `--max-semi-space-size=16`. A
 * preloaded module prints the process's id and flags each time the process starts, and
 * WEB_CONCURRENCY=0 makes the server refuse to start right after that step.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const PRINT = 'data:text/javascript,console.log("start " + JSON.stringify([process.pid, process.execArgv.filter((a) => !a.startsWith("--import") && !a.startsWith("data:"))]))';

function serve(nodeArgs: string[], env: Record<string, string> = {}, args: string[] = []) {
  const r = spawnSync(process.execPath, ['--import', PRINT, ...nodeArgs, 'scripts/serve.mjs', ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', NODE_OPTIONS: '', WEB_CONCURRENCY: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const starts = r.stdout.split('\n').filter((l) => l.startsWith('start ')).map((l) => JSON.parse(l.slice(6)) as [number, string[]]);
  return { starts, status: r.status, stderr: r.stderr };
}

describe('serve.mjs: the young generation of a production server', () => {
  it('started by hand without the flag: the same process runs again with --max-semi-space-size=16', () => {
    const { starts, status, stderr } = serve([]);
    expect(starts).toHaveLength(2);
    expect(starts[0][1]).toEqual([]);
    expect(starts[1][1]).toEqual(['--max-semi-space-size=16']);
    expect(starts[1][0]).toBe(starts[0][0]); // execve: no second process
    expect(status).toBe(1);
    expect(stderr).toContain('WEB_CONCURRENCY must be a positive whole number');
  });

  it('a size given on the command line or in NODE_OPTIONS is kept, and development is left alone', () => {
    expect(serve(['--max-semi-space-size=32']).starts.map((s) => s[1])).toEqual([['--max-semi-space-size=32']]);
    expect(serve([], { NODE_OPTIONS: '--max-semi-space-size=8' }).starts).toHaveLength(1);
    expect(serve([], { NODE_ENV: 'development' }).starts).toHaveLength(1);
  });
});
