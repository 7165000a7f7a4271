import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * The test run's log scan (docs/operations.md "Logs"): a global setup of every vitest project.
 * It makes a folder for the run's log (tests/helpers/logCapture.ts sends every line the
 * service logs there, one file per worker) and, when the project's tests are done, fails the
 * run if any captured line holds a secret: a prefixed secret (`ak_`, `rc_`, `pt_`, `cv_`,
 * `whsec_`) not censored, or a password or secret value the tests created and registered
 * (tests/helpers/secretRegistry.ts). The folder is kept when something leaked.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    logCaptureDir: string;
  }
}

/** An uncensored prefixed secret (the censor leaves `ak_[REDACTED]`, which this does not match). */
export const LEAKED_SHAPE = /\b(ak|rc|pt|cv|whsec)_[A-Za-z0-9_-]{16,}/;
export const SECRETS_FILE_PREFIX = 'secrets-';

export type Leak = { file: string; line: number; what: string };

/** Every captured line of `dir` that holds a secret shape or a registered secret value. */
export function scanLogDir(dir: string): Leak[] {
  if (!fs.existsSync(dir)) return [];
  const files = fs.readdirSync(dir);
  const registered = new Set<string>();
  for (const f of files.filter((f) => f.startsWith(SECRETS_FILE_PREFIX))) {
    for (const v of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) if (v.length >= 8) registered.add(v);
  }
  const leaks: Leak[] = [];
  for (const f of files.filter((f) => f.endsWith('.ndjson'))) {
    fs.readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const shape = LEAKED_SHAPE.exec(text);
        if (shape) leaks.push({ file: f, line: i + 1, what: `a ${shape[1]}_ secret` });
        for (const v of registered) if (text.includes(v) || text.includes(JSON.stringify(v).slice(1, -1))) leaks.push({ file: f, line: i + 1, what: 'a registered secret value' });
      });
  }
  return leaks;
}

export default function setup(project: TestProject) {
  const dir = path.resolve('.test-results', 'logs', `${project.name}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  project.provide('logCaptureDir', dir);
  return () => {
    const leaks = scanLogDir(dir);
    if (leaks.length) {
      // The report names where, never the secret itself.
      const where = leaks.slice(0, 20).map((l) => `  ${l.file}:${l.line}: ${l.what}`);
      // vitest reports an error thrown here but still exits 0: the exit code is set as well.
      process.exitCode = 1;
      throw new Error(`Secrets in the test run's log (${leaks.length}; lines kept in ${dir}):\n${where.join('\n')}`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
