import { describe, expect, it } from 'vitest';
import { playwrightCounts, playwrightSkips, runByServices, skipReason, vitestCounts } from '../../../scripts/test/reports.mjs';
import { servicesLocations } from '../../../scripts/test-services.mjs';
import { totalLines } from '../../../scripts/test-total.mjs';

/**
 * CI's two runs (docs/testing.md "CI"): the second runs exactly the end-to-end tests the
 * README's `npm test` skipped for want of PostgreSQL or Redis, by location; the log ends with
 * one total over both whose last line is `N passed, N failed`.
 */
const readmeSummary = {
  passed: 900,
  failed: 0,
  skipped: 6,
  skips: [
    { runner: 'playwright', file: 'e2e/signin.spec.ts', line: 14, reason: skipReason('needs E2E_DATABASE_URL: the CLI sets the password') },
    { runner: 'playwright', file: 'e2e/reliability/recovery.spec.ts', line: 40, reason: skipReason('needs E2E_DATABASE_URL: rewrites the record') },
    { runner: 'playwright', file: 'e2e/reliability/recovery.spec.ts', line: 40, reason: skipReason('needs E2E_DATABASE_URL: rewrites the record') },
    { runner: 'playwright', file: 'e2e/demo-public-link.spec.ts', line: 11, reason: skipReason('only the embedded-database run seeds the demo') },
    { runner: 'vitest', file: 'tests/integration/races.test.ts', project: 'integration-pglite', reason: skipReason('needs TEST_DATABASE_URL: runs on PostgreSQL only') },
    { runner: 'vitest', file: 'tests/unit/x.test.ts', project: 'unit', reason: skipReason('needs TEST_REDIS_URL') },
  ],
};

describe('scripts/test-services.mjs: what the PostgreSQL/Redis run takes from npm test', () => {
  it('every end-to-end test skipped for want of a service, once per location, and nothing else', () => {
    expect(servicesLocations(readmeSummary)).toEqual(['e2e/signin.spec.ts:14', 'e2e/reliability/recovery.spec.ts:40']);
  });
  it('without a summary of npm test: null (the run then takes every end-to-end test)', () => {
    expect(servicesLocations(null)).toBeNull();
    expect(servicesLocations({})).toBeNull();
  });
  it('integration tests skipped on PGlite are run by the PostgreSQL pass; a unit test needing Redis is not', () => {
    expect(readmeSummary.skips.map(runByServices)).toEqual([true, true, true, false, true, false]);
  });
});

describe('scripts/test/reports.mjs playwrightSkips', () => {
  it('names each skipped test by file and its line, with what it needs', () => {
    const report = {
      suites: [
        {
          file: 'signin.spec.ts',
          specs: [
            { file: 'signin.spec.ts', line: 14, tests: [{ status: 'skipped', annotations: [{ type: 'skip', description: 'needs E2E_DATABASE_URL' }] }] },
            { file: 'signin.spec.ts', line: 30, tests: [{ status: 'expected', annotations: [] }] },
          ],
        },
      ],
    };
    expect(playwrightSkips(report)).toEqual([{ file: 'e2e/signin.spec.ts', line: 14, reason: 'needs TEST_DATABASE_URL' }]);
  });
});

describe('scripts/test/reports.mjs: a failed test is named in the summary', () => {
  it('vitest: file, full name and the first line of the message', () => {
    const c = vitestCounts({
      numPassedTests: 1,
      numFailedTests: 1,
      testResults: [{ name: 'tests/a.test.ts', status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed', fullName: 'group > case', failureMessages: ['\nAssertionError: expected 1 to be 2\n    at x'] }] }],
    });
    expect(c.failed).toBe(1);
    expect(c.notes).toEqual(['failed: tests/a.test.ts > group > case (AssertionError: expected 1 to be 2)']);
  });
  it('playwright: file:line, project and title, the last attempt\'s error', () => {
    const c = playwrightCounts({
      stats: { expected: 2, unexpected: 1 },
      suites: [{ file: 'a.spec.ts', suites: [{ specs: [{ file: 'a.spec.ts', line: 7, title: 'books', tests: [{ status: 'unexpected', projectName: 'e2e', results: [{ error: { message: 'first' } }, { error: { message: 'Timeout 5000ms exceeded' } }] }, { status: 'expected' }] }] }] }],
    });
    expect(c.failed).toBe(1);
    expect(c.notes).toEqual(['failed: e2e/a.spec.ts:7 > [e2e] books (Timeout 5000ms exceeded)']);
  });
});

describe('scripts/test-total.mjs', () => {
  const services = { passed: 300, failed: 1, skipped: 2, skips: [] };
  it('each run its line, the skipped count before, and `N passed, N failed` last', () => {
    const { lines, failed } = totalLines([readmeSummary, services]);
    expect(lines.at(-1)).toBe('1200 passed, 1 failed');
    expect(lines).toContain('README path (npm test)   900 passed, 0 failed, 6 skipped');
    expect(lines).toContain('PostgreSQL and Redis     300 passed, 1 failed, 2 skipped');
    // 6 skipped by the README path, 4 of them run by the second run, and its own 2
    expect(lines.at(-2)).toMatch(/^skipped in all: 4 /);
    expect(failed).toBe(1);
  });
  it('a run that wrote no summary is one failure', () => {
    const { lines, failed } = totalLines([readmeSummary, null]);
    expect(lines.at(-1)).toBe('900 passed, 1 failed');
    expect(lines.at(-2)).toMatch(/^skipped in all: 6 /);
    expect(failed).toBe(1);
  });
});
