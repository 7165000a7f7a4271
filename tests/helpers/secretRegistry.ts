import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { SECRETS_FILE_PREFIX } from './logScan';

/**
 * Where this worker's captured log goes (set by tests/helpers/logCapture.ts, a vitest setup
 * file). Read from globalThis, not with vitest's `inject`: this module is also loaded by test
 * helpers that run outside vitest (tests/integration/mcp/seedStdio.ts under tsx), where
 * importing vitest throws and nothing is captured.
 */
export const LOG_CAPTURE_DIR = Symbol.for('agent-scheduler.test-log-capture-dir');

/**
 * Register a password or secret a test created: the run's log scan (tests/helpers/logScan.ts)
 * fails if it appears in any captured log line. Prefixed secrets (`ak_`, `rc_`, `pt_`, `cv_`,
 * `whsec_`) are found by shape and need no registration.
 */
function registerTestSecret(value: string): void {
  if (value.length < 8 || value.includes('\n')) return;
  const dir = (globalThis as { [LOG_CAPTURE_DIR]?: string })[LOG_CAPTURE_DIR];
  if (dir) fs.appendFileSync(path.join(dir, `${SECRETS_FILE_PREFIX}${process.pid}-${threadId}.txt`), value + '\n');
}

/** Register every `password`/`secret`-named string of a request body the tests send. */
export function registerSecretsIn(value: unknown, depth = 0): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && /passw(or)?d|secret/i.test(k)) registerTestSecret(v);
    else registerSecretsIn(v, depth + 1);
  }
}
