/**
 * Starting the test runners and counting what they report (docs/testing.md "Summary"), shared
 * by `npm test` (scripts/test-all.mjs) and CI's PostgreSQL/Redis run (scripts/test-services.mjs).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  fresh,
  PLAYWRIGHT_REPORT,
  playwrightCounts,
  playwrightSkips,
  readJson,
  RESULTS,
  ROOT,
  skipLines,
  summarize,
  VITEST_REPORT,
  VITEST_SKIPS,
  vitestCounts,
  vitestSkips,
} from './reports.mjs';
import { EXIT_MISSING, prepare } from '../test-prepare.mjs';

const require = createRequire(import.meta.url);

/**
 * A run's first step, shared by `npm test` and CI's second run: the programs the suites start
 * (scripts/test-prepare.mjs; a missing one stops the run here with EXIT_MISSING, not as a failing
 * test file), the Node.js in use, no report of an earlier run, and the environment the runners get,
 * with the e2e servers' database beside TEST_DATABASE_URL's and Redis when one is set. Null when
 * a program is missing (the exit code is then set).
 */
export async function startRun() {
  const ready = prepare();
  if (!ready.ok) {
    console.error(ready.line);
    process.exitCode = EXIT_MISSING;
    return null;
  }
  console.log(`Node.js ${process.version} (${process.execPath})`);
  clearReports();
  const env = { ...process.env, ...ready.env };
  if (env.TEST_DATABASE_URL) {
    env.E2E_DATABASE_URL ||= await freshE2eDatabase(env.TEST_DATABASE_URL);
    const redis = env.TEST_REDIS_URL || env.REDIS_URL;
    if (redis) env.E2E_REDIS_URL ||= redis;
  }
  return env;
}

function runNode(label, script, args, env, command = process.execPath) {
  console.log(`\n=== ${label}: ${path.relative(ROOT, script)} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(command, [script, ...args], { cwd: ROOT, stdio: 'inherit', env });
    child.on('error', (err) => {
      console.error(`${label} could not start: ${err.message}`);
      resolve({ code: 127, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Earlier reports go first, so a runner that writes none is never credited with an old one. */
function clearReports() {
  fs.mkdirSync(RESULTS, { recursive: true });
  for (const f of [VITEST_REPORT, PLAYWRIGHT_REPORT, VITEST_SKIPS]) fs.rmSync(f, { force: true });
}

/** `vitest <args>`: its counts and skipped tests. */
export async function runVitest(args, env) {
  const bin = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
  const startedAt = Date.now();
  const result = await runNode('vitest', bin, args, env);
  const report = fresh(readJson(VITEST_REPORT), startedAt, (r) => Number(r.startTime));
  const skips = fresh(readJson(VITEST_SKIPS), startedAt, (r) => Number(r.startTime));
  return { label: 'vitest', counts: summarize(result, report, vitestCounts), skips: vitestSkips(skips, env) };
}

/**
 * The claim tests through PgBouncer in transaction pooling (scripts/ha/pgbouncer-claims.sh, which
 * runs vitest's integration-pg project behind it; docs/operations.md "High availability"): counted
 * as a row of its own.
 */
export async function runPgbouncerClaims(env) {
  const startedAt = Date.now();
  const result = await runNode('pgbouncer', path.join(ROOT, 'scripts', 'ha', 'pgbouncer-claims.sh'), [], env, 'bash');
  const report = fresh(readJson(VITEST_REPORT), startedAt, (r) => Number(r.startTime));
  const skips = fresh(readJson(VITEST_SKIPS), startedAt, (r) => Number(r.startTime));
  return { label: 'pgbouncer', counts: summarize(result, report, vitestCounts), skips: vitestSkips(skips, env) };
}

/**
 * `knip` (knip.ts: no dead file, export or dependency; docs/testing.md "Dead code"): one
 * check, passed when knip reports nothing; its findings, if any, print above the summary.
 */
export async function runKnip(env) {
  const bin = path.join(ROOT, 'node_modules', 'knip', 'bin', 'knip.js'); // its package exports no package.json to resolve
  const result = await runNode('knip', bin, ['--no-progress'], env);
  const passed = result.code === 0 && !result.signal;
  const why = result.signal ? `killed by ${result.signal}` : `exit code ${result.code}`;
  const notes = passed ? [] : [`knip reported findings or failed (${why}): its output is above (npm run knip)`];
  return { label: 'knip', counts: { passed: passed ? 1 : 0, failed: passed ? 0 : 1, skipped: 0, notes }, skips: [] };
}

/** `playwright <args>`: its counts and skipped tests. */
export async function runPlaywright(args, env) {
  const cli = path.join(path.dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
  const startedAt = Date.now();
  const result = await runNode('playwright', cli, args, env);
  const report = fresh(readJson(PLAYWRIGHT_REPORT), startedAt, (r) => Date.parse(r.stats?.startTime));
  return { label: 'playwright', counts: summarize(result, report, playwrightCounts), skips: playwrightSkips(report) };
}

/** Prints one line per runner (counts, notes, skipped tests by what they need) and answers the totals. */
export function printRows(rows) {
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const { label, counts: c, skips } of rows) {
    console.log(`${label.padEnd(10)} ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
    for (const n of c.notes) console.log(`           ${n}`);
    for (const line of skipLines(skips)) console.log(`           ${line}`);
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
  }
  return total;
}

/** A run's totals and skipped tests, for CI's total line (scripts/test-total.mjs) and the run after it. */
export function writeSummary(file, name, total, rows) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ name, finishedAt: new Date().toISOString(), ...total, skips: rows.flatMap((r) => r.skips.map((s) => ({ runner: r.label, ...s }))) }, null, 1) + '\n');
}

/**
 * The e2e servers get a database of their own next to TEST_DATABASE_URL's (`<name>_e2e`,
 * dropped and created for each run): the integration tests leave thousands of bookings
 * behind, and the servers' background workers (invitations, webhooks, calendar sync)
 * would otherwise spend the run working through them.
 */
async function freshE2eDatabase(testUrl) {
  const url = new URL(testUrl);
  const name = `${decodeURIComponent(url.pathname.slice(1)) || 'postgres'}_e2e`;
  const postgres = require('postgres');
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}
