#!/usr/bin/env node
/**
 * `npm test`: knip (dead files, exports and dependencies: one check), Vitest
 * (unit + integration), then Playwright (end to end, which builds and starts
 * the production server). Reads the runners' reports and prints, as its last
 * line, `N passed, N failed, N skipped` (totals across all three). Exits non-zero when anything failed, including a
 * runner that crashed or exited non-zero without a report, which counts as a
 * failure, never as "0 failed". The totals and the skipped tests also go to
 * .test-results/summary.json (CI's PostgreSQL/Redis run reads which end-to-end
 * tests to run from it, scripts/test-services.mjs; docs/testing.md "CI").
 *
 * TEST_DATABASE_URL (PostgreSQL) also runs the integration tests on it and
 * starts two e2e server instances on a fresh database beside it (`<name>_e2e`,
 * unless E2E_DATABASE_URL names one), sharing Redis from
 * TEST_REDIS_URL or REDIS_URL (E2E_REDIS_URL).
 *
 * Before any runner starts, scripts/test-prepare.mjs (the step .ci/run shares)
 * makes sure the programs the suites start are there (Chromium, Radicale),
 * installing them where the machine allows, or stops with one line naming the
 * command to run. Skipped tests are grouped in the summary by what they need
 * (tests/helpers/skipReporter.ts writes vitest's notes; Playwright's skip
 * annotations come with its report).
 */
import './node-version.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsServices, RESULTS } from './test/reports.mjs';
import { printRows, runKnip, runPlaywright, runVitest, startRun, writeSummary } from './test/runners.mjs';

/** Where `npm test` leaves its totals and skipped tests. */
export const SUMMARY_FILE = path.join(RESULTS, 'summary.json');

async function main() {
  fs.rmSync(SUMMARY_FILE, { force: true });
  const env = await startRun();
  if (!env) return;
  console.log(
    `test: integration on PGlite${env.TEST_DATABASE_URL ? ' and PostgreSQL' : ''}; e2e on ` +
      (env.E2E_DATABASE_URL ? `two instances sharing PostgreSQL${env.E2E_REDIS_URL ? ' and Redis' : ''}` : 'one instance with a temporary PGlite'),
  );

  const rows = [await runKnip(env), await runVitest(['run'], env), await runPlaywright(['test'], env)];
  console.log('\n=== summary');
  const total = printRows(rows);
  if (rows.some((r) => r.skips.some(needsServices))) {
    console.log(
      'To run the skipped tests too: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test ' +
        'TEST_REDIS_URL=redis://127.0.0.1:6379 npm test (a PostgreSQL database and a Redis of your own; .ci/run starts both)',
    );
  }
  writeSummary(SUMMARY_FILE, 'npm test', total, rows);
  console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.exitCode = total.failed > 0 ? 1 : 0;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  main().catch((err) => {
    console.error(`test-all: ${err?.stack ?? err}`);
    console.log('0 passed, 1 failed, 0 skipped');
    process.exitCode = 1;
  });
}
