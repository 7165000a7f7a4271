/**
 * Notes for `ctx.skip(note)`: tests that need a service say which setting runs
 * them, and `npm test`'s summary groups skipped tests by these notes
 * (tests/helpers/skipReporter.ts, scripts/test-all.mjs).
 */
export const NEEDS_POSTGRES_FOR_RACES =
  'needs TEST_DATABASE_URL: runs on PostgreSQL only (PGlite is one connection, so a race there proves nothing)';
export const NEEDS_POSTGRES_SOCKET =
  "needs TEST_DATABASE_URL: runs on PostgreSQL only (it counts the wire protocol's writes; PGlite runs in process)";
export const NEEDS_POSTGRES_SESSIONS =
  'needs TEST_DATABASE_URL: runs on PostgreSQL only (it looks at server sessions: prepared statements, LISTEN connections)';
