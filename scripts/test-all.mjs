#!/usr/bin/env node
/**
 * `npm test`: Vitest (unit + integration), then Playwright (end to end,
 * which builds and starts the production server). Reads both runners' JSON
 * reports and prints, as its last line, `N passed, N failed, N skipped`
 * (totals across both). Exits non-zero when anything failed, including a
 * runner that crashed or exited non-zero without a report, which counts as a
 * failure, never as "0 failed".
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
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT_MISSING, prepare } from './test-prepare.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const RESULTS = path.join(ROOT, '.test-results');
const VITEST_REPORT = path.join(RESULTS, 'vitest.json'); // written by vitest.config.ts's json reporter
const PLAYWRIGHT_REPORT = path.join(RESULTS, 'playwright.json'); // written by playwright.config.ts's json reporter
const VITEST_SKIPS = path.join(RESULTS, 'vitest-skips.json'); // written by tests/helpers/skipReporter.ts

function runNode(label, script, args, env) {
  console.log(`\n=== ${label}: ${path.relative(ROOT, script)} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: 'inherit', env });
    child.on('error', (err) => {
      console.error(`${label} could not start: ${err.message}`);
      resolve({ code: 127, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** A report whose run started before we launched the runner is someone else's (e.g. a concurrent run in the same tree). */
function fresh(report, startedAt, startTimeOf) {
  if (!report) return null;
  const t = startTimeOf(report);
  return Number.isFinite(t) && t + 1000 < startedAt ? null : report;
}

/** Vitest's JSON report: per-test counts, plus files that failed without a failing test (import errors, hook failures). */
function vitestCounts(report) {
  const passed = report.numPassedTests ?? 0;
  let failed = report.numFailedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const notes = [];
  for (const file of report.testResults ?? []) {
    const anyFailedTest = (file.assertionResults ?? []).some((a) => a.status === 'failed');
    if (file.status === 'failed' && !anyFailedTest) {
      failed += 1;
      notes.push(`file failed outside any test: ${path.relative(ROOT, file.name ?? '?')}${file.message ? ` (${String(file.message).split('\n')[0]})` : ''}`);
    }
  }
  return { passed, failed, skipped, notes };
}

/** Playwright's JSON report: expected = passed, unexpected = failed, flaky passed on retry; top-level errors (web server, config) fail. */
function playwrightCounts(report) {
  const s = report.stats ?? {};
  const passed = (s.expected ?? 0) + (s.flaky ?? 0);
  let failed = s.unexpected ?? 0;
  const skipped = s.skipped ?? 0;
  const notes = [];
  const errors = report.errors ?? [];
  if (errors.length) {
    failed += errors.length;
    for (const e of errors) notes.push(`error outside tests: ${String(e.message ?? e).split('\n')[0]}`);
  }
  return { passed, failed, skipped, notes };
}

/** What a skipped test needs, from its note: the setting that runs it, in `npm test`'s own terms. */
export function skipReason(note) {
  const text = String(note ?? '');
  const db = /(TEST|E2E)_DATABASE_URL|PostgreSQL/.test(text);
  const redis = /(TEST|E2E)_REDIS_URL|\bRedis\b/.test(text);
  if (db && redis) return 'needs TEST_DATABASE_URL and TEST_REDIS_URL';
  if (db) return 'needs TEST_DATABASE_URL';
  if (redis) return 'needs TEST_REDIS_URL';
  return text ? text.split('\n')[0] : 'skipped without a note';
}

/** Vitest's skipped tests as {file, reason}. With TEST_DATABASE_URL set, PostgreSQL-only tests skipped on PGlite ran on PostgreSQL. */
function vitestSkips(skipsReport, env) {
  return (skipsReport?.skips ?? []).map((s) => {
    let reason = skipReason(s.note);
    if (env.TEST_DATABASE_URL && reason === 'needs TEST_DATABASE_URL' && s.project === 'integration-pglite') {
      reason = 'PostgreSQL only: skipped on PGlite, run by integration-pg';
    }
    return { file: s.file, reason };
  });
}

/** Playwright's skipped tests as {file, reason}, the reason from the test's skip annotation. */
function playwrightSkips(report) {
  const out = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'skipped') continue;
        const note = (t.annotations ?? []).find((a) => a.type === 'skip' || a.type === 'fixme')?.description;
        out.push({ file: path.join('e2e', spec.file ?? suite.file ?? '?'), reason: skipReason(note) });
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report?.suites ?? []) walk(suite);
  return out;
}

/** Lines naming each reason with its count and files (`file (n)`), for the summary. */
export function skipLines(skips) {
  const byReason = new Map();
  for (const s of skips) {
    const files = byReason.get(s.reason) ?? new Map();
    files.set(s.file, (files.get(s.file) ?? 0) + 1);
    byReason.set(s.reason, files);
  }
  return [...byReason].map(([reason, files]) => {
    const n = [...files.values()].reduce((a, b) => a + b, 0);
    return `skipped ${n}, ${reason}: ${[...files].map(([f, c]) => `${f} (${c})`).join(', ')}`;
  });
}

function summarize(label, result, report, count) {
  if (!report) {
    const why = result.signal ? `killed by ${result.signal}` : `exit code ${result.code}`;
    return { passed: 0, failed: 1, skipped: 0, notes: [`no report written (${why}): counted as one failure`] };
  }
  const c = count(report);
  if ((result.code !== 0 || result.signal) && c.failed === 0) {
    c.failed = 1;
    c.notes.push(`runner ${result.signal ? `killed by ${result.signal}` : `exited with code ${result.code}`} without reporting a failure: counted as one failure`);
  }
  return c;
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

async function main() {
  // Prerequisites first: a missing program stops the run here, not as a failing test file.
  const ready = prepare();
  if (!ready.ok) {
    console.error(ready.line);
    process.exitCode = EXIT_MISSING;
    return;
  }

  fs.mkdirSync(RESULTS, { recursive: true });
  for (const f of [VITEST_REPORT, PLAYWRIGHT_REPORT, VITEST_SKIPS]) fs.rmSync(f, { force: true });

  const env = { ...process.env, ...ready.env };
  if (env.TEST_DATABASE_URL) {
    env.E2E_DATABASE_URL ||= await freshE2eDatabase(env.TEST_DATABASE_URL);
    const redis = env.TEST_REDIS_URL || env.REDIS_URL;
    if (redis) env.E2E_REDIS_URL ||= redis;
  }
  console.log(
    `test: integration on PGlite${env.TEST_DATABASE_URL ? ' and PostgreSQL' : ''}; e2e on ` +
      (env.E2E_DATABASE_URL ? `two instances sharing PostgreSQL${env.E2E_REDIS_URL ? ' and Redis' : ''}` : 'one instance with a temporary PGlite'),
  );

  const vitestBin = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
  const vitestStarted = Date.now();
  const vitest = await runNode('vitest', vitestBin, ['run'], env);
  const vitestReport = fresh(readJson(VITEST_REPORT), vitestStarted, (r) => Number(r.startTime));
  const vitestSkipReport = fresh(readJson(VITEST_SKIPS), vitestStarted, (r) => Number(r.startTime));

  const playwrightCli = path.join(path.dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
  const playwrightStarted = Date.now();
  const playwright = await runNode('playwright', playwrightCli, ['test'], env);
  const playwrightReport = fresh(readJson(PLAYWRIGHT_REPORT), playwrightStarted, (r) => Date.parse(r.stats?.startTime));

  const rows = [
    ['vitest', summarize('vitest', vitest, vitestReport, vitestCounts), vitestSkips(vitestSkipReport, env)],
    ['playwright', summarize('playwright', playwright, playwrightReport, playwrightCounts), playwrightSkips(playwrightReport)],
  ];
  const total = { passed: 0, failed: 0, skipped: 0 };
  let needsServices = false;
  console.log('\n=== summary');
  for (const [label, c, skips] of rows) {
    console.log(`${label.padEnd(10)} ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
    for (const n of c.notes) console.log(`           ${n}`);
    for (const line of skipLines(skips)) console.log(`           ${line}`);
    needsServices ||= skips.some((s) => s.reason.startsWith('needs TEST_'));
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
  }
  if (needsServices) {
    console.log(
      'To run the skipped tests too: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test ' +
        'TEST_REDIS_URL=redis://127.0.0.1:6379 npm test (a PostgreSQL database and a Redis of your own; .ci/run starts both)',
    );
  }
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
