import { defineConfig } from 'vitest/config';
import path from 'node:path';

const alias = { '@': path.resolve(import.meta.dirname) };
const pg = process.env.TEST_DATABASE_URL;
// Every project captures the service's log and scans it for secrets at the end (tests/helpers/logScan.ts).
const logScan = { globalSetup: ['./tests/helpers/logScan.ts'], setupFiles: ['./tests/helpers/logCapture.ts'] };

// Unit tests are pure (no database). Integration tests run on the embedded
// PGlite by default and, when TEST_DATABASE_URL is set, a second time on
// PostgreSQL (the `integration-pg` project).
// Two test files at a time (VITEST_MAX_WORKERS to change): vitest's default on a 2-core machine is
// one, which leaves a core idle while an embedded-database file computes (PGlite runs in the worker)
// or a PostgreSQL file waits on the server. Files never share a database: PGlite is per file, and
// on PostgreSQL every test mints its own customer.
const maxWorkers = Number(process.env.VITEST_MAX_WORKERS) || 2;
// Every embedded-database file starts from one migrated dump, written by the project's global setup
// (tests/helpers/pgliteTemplate.ts; docs/testing.md "Embedded database template").
const pgliteTemplate = path.join(import.meta.dirname, 'node_modules', '.cache', 'agent-scheduler', 'pglite-template.tar');

export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers,
    reporters: ['default', 'json', './tests/helpers/skipReporter.ts'],
    outputFile: { json: '.test-results/vitest.json' },
    projects: [
      { resolve: { alias }, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node', ...logScan } },
      {
        resolve: { alias },
        test: {
          name: 'integration-pglite',
          include: ['tests/integration/**/*.test.ts'],
          ...logScan,
          globalSetup: [...logScan.globalSetup, './tests/helpers/pgliteTemplate.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          env: { DATABASE_URL: '', DB_DRIVER: 'pglite-memory', REDIS_URL: '', PGLITE_TEMPLATE: pgliteTemplate },
        },
      },
      ...(pg
        ? [{
            resolve: { alias },
            test: {
              name: 'integration-pg',
              include: ['tests/integration/**/*.test.ts'],
              ...logScan,
              environment: 'node' as const,
              testTimeout: 60_000,
              hookTimeout: 120_000,
              env: { DATABASE_URL: pg, DB_DRIVER: 'postgres', REDIS_URL: process.env.TEST_REDIS_URL ?? '' },
            },
          }]
        : []),
    ],
  },
});
