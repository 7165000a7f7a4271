#!/usr/bin/env node
/**
 * CI's second run (.ci/run, after the README's `npm test`; docs/testing.md "CI"): what only
 * PostgreSQL and Redis can prove, and nothing `npm test` has already proven on the embedded
 * database.
 *
 * - Vitest: the integration suite on PostgreSQL (the `integration-pg` project, with Redis from
 *   TEST_REDIS_URL), which is the suite's PostgreSQL pass (the same SQL on the server every
 *   deployment with DATABASE_URL runs) and includes the races PGlite skips.
 * - Playwright: exactly the tests `npm test` skipped for want of PostgreSQL or Redis (two
 *   instances on a fresh database beside TEST_DATABASE_URL's, sharing Redis), by location from
 *   its summary (.test-results/summary.json); the build it made is reused (E2E_SKIP_BUILD=1).
 *   Without that summary every end-to-end test runs here.
 *
 * Needs TEST_DATABASE_URL (and TEST_REDIS_URL or REDIS_URL). Prints its summary and writes it to
 * .test-results/summary-services.json; its last line is `N passed, N failed, N skipped`.
 */
import './node-version.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJson, RESULTS, ROOT, runByServices } from './test/reports.mjs';
import { printRows, runPgbouncerClaims, runPlaywright, runVitest, startRun, writeSummary } from './test/runners.mjs';

export const SERVICES_SUMMARY_FILE = path.join(RESULTS, 'summary-services.json');
const README_SUMMARY_FILE = path.join(RESULTS, 'summary.json'); // scripts/test-all.mjs SUMMARY_FILE

/** `file:line` of every end-to-end test the README run skipped for want of PostgreSQL or Redis (each once), or null without its summary. */
export function servicesLocations(summary) {
  if (!summary?.skips) return null;
  const locations = summary.skips.filter((s) => s.runner === 'playwright' && runByServices(s)).map((s) => `${s.file}:${s.line}`);
  return [...new Set(locations)];
}

async function main() {
  fs.rmSync(SERVICES_SUMMARY_FILE, { force: true });
  if (!process.env.TEST_DATABASE_URL) {
    console.error('test-services: needs TEST_DATABASE_URL (and TEST_REDIS_URL); .ci/run sets both');
    process.exitCode = 2;
    return;
  }
  const locations = servicesLocations(readJson(README_SUMMARY_FILE));
  const env = await startRun();
  if (!env) return;
  if (fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) env.E2E_SKIP_BUILD ||= '1';
  console.log(
    `test (PostgreSQL and Redis): integration on PostgreSQL; e2e on two instances sharing PostgreSQL${env.E2E_REDIS_URL ? ' and Redis' : ''}: ` +
      (locations ? `the ${locations.length} tests npm test skipped for want of them` : 'every test (no summary of npm test found)'),
  );

  const rows = [await runVitest(['run', '--project', 'integration-pg'], env)];
  // The claim tests again through PgBouncer in transaction pooling (issue 43's CI proof), with
  // fewer race rounds than above: the point is the pooler, the histories were proven just now.
  if (pgbouncerInstalled()) rows.push(await runPgbouncerClaims({ ...env, RACE_ROUNDS: env.PGBOUNCER_RACE_ROUNDS || '3' }));
  else console.log('\npgbouncer is not installed: the claim tests through PgBouncer are left out (.ci/run installs it)');
  if (!locations || locations.length) rows.push(await runPlaywright(['test', ...(locations ?? [])], env));
  console.log('\n=== summary (PostgreSQL and Redis)');
  const total = printRows(rows);
  writeSummary(SERVICES_SUMMARY_FILE, 'PostgreSQL and Redis', total, rows);
  console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  process.exitCode = total.failed > 0 ? 1 : 0;
}

/** PgBouncer's binary, as scripts/ha/pgbouncer-claims.sh looks for it. */
function pgbouncerInstalled() {
  return ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].some((p) => fs.existsSync(p));
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  main().catch((err) => {
    console.error(`test-services: ${err?.stack ?? err}`);
    console.log('0 passed, 1 failed, 0 skipped');
    process.exitCode = 1;
  });
}
