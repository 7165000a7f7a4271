#!/usr/bin/env node
/**
 * The end of CI's log (.ci/run; docs/testing.md "CI"): each run's line, then one plain total
 * over both, `N passed, N failed`, as the last line. The runs' summaries are
 * .test-results/summary.json (the README's `npm test`, scripts/test-all.mjs) and
 * .test-results/summary-services.json (PostgreSQL and Redis, scripts/test-services.mjs); a run
 * without one (it crashed, or stopped before its runners) counts as one failure. Skipped tests
 * are counted on the line before: those the README run skipped for want of PostgreSQL or Redis
 * ran in the second run, so they are not skipped in all.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJson, RESULTS, runByServices } from './test/reports.mjs';

const RUNS = [
  ['README path (npm test)', path.join(RESULTS, 'summary.json')],
  ['PostgreSQL and Redis', path.join(RESULTS, 'summary-services.json')],
];

/** The lines CI ends with, from the runs' summaries (null: that run wrote none). */
export function totalLines(summaries) {
  const lines = ['', '=== total'];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const [i, [label]] of RUNS.entries()) {
    const s = summaries[i];
    if (!s) {
      lines.push(`${label.padEnd(24)} no summary written: counted as one failure`);
      failed += 1;
      continue;
    }
    lines.push(`${label.padEnd(24)} ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
    passed += s.passed;
    failed += s.failed;
    // the README run's skips that the second run ran (it ran exactly those, when it ran)
    skipped += i === 0 && summaries[1] ? s.skipped - (s.skips ?? []).filter(runByServices).length : s.skipped;
  }
  lines.push(`skipped in all: ${skipped} (tests the README path skipped for want of PostgreSQL or Redis ran in the second run)`);
  lines.push(`${passed} passed, ${failed} failed`);
  return { lines, failed };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { lines, failed } = totalLines(RUNS.map(([, file]) => readJson(file)));
  for (const line of lines) console.log(line);
  process.exitCode = failed > 0 ? 1 : 0;
}
