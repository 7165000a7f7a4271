#!/usr/bin/env node
/**
 * The one preparation step of `npm test` and `.ci/run`: the programs the test
 * suites start themselves, found on PATH.
 *
 * - `chromium` (Debian's; Playwright drives it, never `npx playwright install`)
 * - `radicale` (Debian's; the CalDAV tests start their own instances on loopback)
 *
 * When one is missing and the machine allows it (running as root with `apt-get`
 * on PATH, and TEST_PREPARE_INSTALL is not `0`), it is installed from Debian's
 * packages, as on CI. Otherwise the step stops at once, before any test runs,
 * with exit code 3 and one line that names the exact command to run.
 *
 * The programs' paths are handed to the test runners as CHROMIUM_PATH and
 * RADICALE_PATH (playwright.config.ts, tests/helpers/radicale.ts).
 *
 * As a script: prints what it did and exits 0 (ready) or 3 (missing).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the suites need: program on PATH -> Debian package, and the env variable that carries its path. */
export const PREREQUISITES = [
  { program: 'chromium', pkg: 'chromium', env: 'CHROMIUM_PATH', why: 'browser for the Playwright tests' },
  { program: 'radicale', pkg: 'radicale', env: 'RADICALE_PATH', why: 'CalDAV server for the calendar tests' },
];

export const EXIT_MISSING = 3;

/** The executable `name` on the PATH of `env`, or null. */
export function which(name, env = process.env) {
  for (const dir of String(env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The one line a person reads when the step cannot install for them. */
export function missingLine(missing, { root = isRoot() } = {}) {
  const pkgs = missing.map((m) => m.pkg).join(' ');
  const sudo = root ? '' : 'sudo ';
  return (
    `npm test needs ${missing.map((m) => `${m.program} (${m.why})`).join(' and ')}: ` +
    `run \`${sudo}apt-get update && ${sudo}apt-get install -y ${pkgs}\`, then npm test again`
  );
}

/**
 * Check, and install where allowed. Returns {ok, env, installed, line}: `env` holds the
 * CHROMIUM_PATH / RADICALE_PATH to hand the runners; `line` is the one-line instruction when not ok.
 */
export function prepare({ env = process.env, log = (s) => console.log(`[test-prepare] ${s}`), allowInstall } = {}) {
  const find = () => PREREQUISITES.map((p) => ({ ...p, path: which(p.program, env) }));
  let found = find();
  let missing = found.filter((p) => !p.path);
  const installed = [];
  if (missing.length) {
    const aptGet = which('apt-get', env);
    const may = allowInstall ?? (env.TEST_PREPARE_INSTALL !== '0' && isRoot() && Boolean(aptGet));
    if (may) {
      const pkgs = missing.map((m) => m.pkg);
      log(`installing ${pkgs.join(', ')} from Debian's packages (apt-get; set TEST_PREPARE_INSTALL=0 to never install)`);
      const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
      const update = spawnSync(aptGet, ['update'], { stdio: ['ignore', 'inherit', 'inherit'], env: aptEnv });
      const install =
        update.status === 0 ? spawnSync(aptGet, ['install', '-y', ...pkgs], { stdio: ['ignore', 'inherit', 'inherit'], env: aptEnv }) : update;
      if (install.status !== 0) log(`apt-get failed (exit ${install.status ?? install.signal ?? install.error?.message})`);
      found = find();
      for (const m of missing) if (found.find((f) => f.program === m.program)?.path) installed.push(m.program);
      missing = found.filter((p) => !p.path);
    }
  }
  if (missing.length) return { ok: false, env: {}, installed, line: missingLine(missing) };
  return { ok: true, env: Object.fromEntries(found.map((p) => [p.env, p.path])), installed, line: null };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const result = prepare();
  if (!result.ok) {
    console.error(result.line);
    process.exit(EXIT_MISSING);
  }
  console.log(
    `[test-prepare] ready: ${Object.entries(result.env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}${result.installed.length ? ` (installed ${result.installed.join(', ')})` : ''}`,
  );
}
