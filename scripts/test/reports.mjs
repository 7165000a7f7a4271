/**
 * Reading the test runners' JSON reports (docs/testing.md "Summary"): counts per runner, and the
 * skipped tests with what they need. Shared by `npm test` (scripts/test-all.mjs) and CI's
 * PostgreSQL/Redis run (scripts/test-services.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS = path.join(ROOT, '.test-results');
export const VITEST_REPORT = path.join(RESULTS, 'vitest.json'); // written by vitest.config.ts's json reporter
export const PLAYWRIGHT_REPORT = path.join(RESULTS, 'playwright.json'); // written by playwright.config.ts's json reporter
export const VITEST_SKIPS = path.join(RESULTS, 'vitest-skips.json'); // written by tests/helpers/skipReporter.ts

export function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** A report whose run started before we launched the runner is someone else's (e.g. a concurrent run in the same tree). */
export function fresh(report, startedAt, startTimeOf) {
  if (!report) return null;
  const t = startTimeOf(report);
  return Number.isFinite(t) && t + 1000 < startedAt ? null : report;
}

/** Vitest's JSON report: per-test counts, plus files that failed without a failing test (import errors, hook failures). */
export function vitestCounts(report) {
  const passed = report.numPassedTests ?? 0;
  let failed = report.numFailedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const notes = [];
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    const anyFailedTest = failedTests.length > 0;
    for (const a of failedTests) notes.push(failedNote(path.relative(ROOT, file.name ?? '?'), a.fullName ?? a.title, a.failureMessages?.[0]));
    if (file.status === 'failed' && !anyFailedTest) {
      failed += 1;
      notes.push(`file failed outside any test: ${path.relative(ROOT, file.name ?? '?')}${file.message ? ` (${String(file.message).split('\n')[0]})` : ''}`);
    }
  }
  return { passed, failed, skipped, notes };
}

/** One failed test for the summary: where, which, and the first line of why (the tail of a CI log then says what failed). */
export function failedNote(where, name, message) {
  const why = String(message ?? '').split('\n').find((l) => l.trim()) ?? '';
  return `failed: ${where} > ${name ?? '?'}${why ? ` (${why.trim().slice(0, 200)})` : ''}`;
}

/** Playwright's JSON report: expected = passed, unexpected = failed, flaky passed on retry; top-level errors (web server, config) fail. */
export function playwrightCounts(report) {
  const s = report.stats ?? {};
  const passed = (s.expected ?? 0) + (s.flaky ?? 0);
  let failed = s.unexpected ?? 0;
  const skipped = s.skipped ?? 0;
  const notes = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'unexpected') continue;
        const last = (t.results ?? []).at(-1);
        notes.push(failedNote(`${path.join('e2e', spec.file ?? suite.file ?? '?')}:${spec.line}`, `[${t.projectName}] ${spec.title}`, last?.error?.message));
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
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

/** A skip that PostgreSQL or Redis would run. */
export function needsServices(skip) {
  return skip.reason.startsWith('needs TEST_');
}

/**
 * A skip of `npm test`'s summary that CI's second run runs (scripts/test-services.mjs): an
 * end-to-end test by its location, an integration test in the suite's PostgreSQL pass.
 */
export function runByServices(skip) {
  return needsServices(skip) && (skip.runner === 'playwright' || String(skip.project ?? '').startsWith('integration'));
}

/** Vitest's skipped tests as {file, reason, project}. With TEST_DATABASE_URL set, PostgreSQL-only tests skipped on PGlite ran on PostgreSQL. */
export function vitestSkips(skipsReport, env) {
  return (skipsReport?.skips ?? []).map((s) => {
    let reason = skipReason(s.note);
    if (env.TEST_DATABASE_URL && reason === 'needs TEST_DATABASE_URL' && s.project === 'integration-pglite') {
      reason = 'PostgreSQL only: skipped on PGlite, run by integration-pg';
    }
    return { file: s.file, reason, project: s.project };
  });
}

/** Playwright's skipped tests as {file, line, reason}, the reason from the test's skip annotation; `line` is the test's. */
export function playwrightSkips(report) {
  const out = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'skipped') continue;
        const note = (t.annotations ?? []).find((a) => a.type === 'skip' || a.type === 'fixme')?.description;
        out.push({ file: path.join('e2e', spec.file ?? suite.file ?? '?'), line: spec.line, reason: skipReason(note) });
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

/** A runner's counts from its exit and report; no report, or a failed exit without a failing test, is one failure. */
export function summarize(result, report, count) {
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
