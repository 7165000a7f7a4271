/**
 * `npm run -s client:pack [-- --out <dir>]`: the typed client package (@agent-scheduler/client,
 * clients/typescript) as a tarball, built and packed in a scratch directory, so nothing is
 * written into the checkout (no dist/, no .tgz; docs/agents.md "Use it from the TypeScript
 * client"). The tarball goes to `--out`, else to the directory npm was started from when that
 * lies outside the checkout (`npm --prefix <checkout> run -s client:pack` from your project puts
 * it there), else to the system's temporary directory. Prints the tarball's absolute path, one
 * line, so `npm install "$(npm --prefix <checkout> run -s client:pack)"` installs it.
 */
import './node-version.mjs';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const ROOT = path.resolve(import.meta.dirname, '..');
const PACKAGE = path.join(ROOT, 'clients', 'typescript');

function destination() {
  const i = process.argv.indexOf('--out');
  if (i > 0) {
    const out = process.argv[i + 1];
    if (!out) throw new Error('--out needs a directory');
    return path.resolve(process.env.INIT_CWD ?? process.cwd(), out);
  }
  const started = process.env.INIT_CWD ? path.resolve(process.env.INIT_CWD) : null;
  const inside = (dir) => dir === ROOT || dir.startsWith(ROOT + path.sep);
  return started && !inside(started) ? started : os.tmpdir();
}

const out = destination();
fs.mkdirSync(out, { recursive: true });
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-scheduler-client-'));
try {
  for (const f of ['package.json', 'README.md', 'tsconfig.json']) fs.copyFileSync(path.join(PACKAGE, f), path.join(stage, f));
  fs.cpSync(path.join(PACKAGE, 'src'), path.join(stage, 'src'), { recursive: true });
  // The checkout's TypeScript compiles the copy against the checkout's openapi-fetch (a link; npm pack leaves node_modules out).
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'junction');
  const tsc = createRequire(path.join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(stage, 'tsconfig.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
  fs.copyFileSync(path.join(stage, 'src', 'schema.d.ts'), path.join(stage, 'dist', 'schema.d.ts'));
  // Built already: prepack (which builds in place) is not run.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = JSON.parse(
    execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    }),
  );
  console.log(path.join(out, packed[0].filename));
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
