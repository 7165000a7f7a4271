#!/usr/bin/env node
/**
 * postinstall: patches postgres.js 3.4.9 (node_modules/postgres, its ESM and CommonJS copies) so
 * that a connection's next session starts clean after the server ended the last one
 * (docs/operations.md "High availability", "The driver's patch"). 3.4.9's `closed()` keeps the
 * ended session's current query, its pending ErrorResponse and its DataRow counter: the first
 * statement after the reconnect was rejected with the old session's FATAL (57P01 after a
 * failover's fast shutdown), and the next result began with as many empty rows as the ended result
 * had received, so a lookup read "not found". And the array-type fetch a new connection runs first
 * rejected unhandled when it failed (its error already reaches the connection's first query).
 *
 * Idempotent; files are replaced (written beside, then renamed), never written in place, so a
 * node_modules of hard links shared with another checkout is left alone. Another version of
 * postgres.js fails the install: check whether it still needs this, then change VERSION.
 * Proof: tests/integration/platform/driverReconnectState.test.ts fails without it.
 */
import fs from 'node:fs';
import path from 'node:path';

const VERSION = '3.4.9';
const MARK = '/* agent-scheduler patch (scripts/patch-postgres.mjs): a new session starts clean */';
const root = path.join(import.meta.dirname, '..', 'node_modules', 'postgres');

const EDITS = [
  // The close of a connection still starting (its reconnect follows at once).
  ['    if (initial)\n      return reconnect()\n', '    if (initial)\n      return resetSession(), reconnect()\n'],
  // The close of an open connection: its queries are failed with CONNECTION_CLOSED first.
  [
    "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n    resetSession()\n",
  ],
  [
    '  /* Handlers */\n',
    `  ${MARK}\n  function resetSession() {\n    query = results = errorResponse = null\n    result = new Result()\n    rows = 0\n  }\n\n  /* Handlers */\n`,
  ],
  ['        return fetchArrayTypes()\n', '        return fetchArrayTypes().catch(() => { /* errored() gave its error to the first query */ })\n'],
];

function patch(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (text.includes(MARK)) return 'already patched';
  let out = text;
  for (const [from, to] of EDITS) {
    if (out.split(from).length !== 2) throw new Error(`${file}: the text to patch is not there once: ${JSON.stringify(from.trim())}`);
    out = out.replace(from, to);
  }
  const tmp = `${file}.patch-${process.pid}`;
  fs.writeFileSync(tmp, out, { mode: fs.statSync(file).mode });
  fs.renameSync(tmp, file);
  return 'patched';
}

if (!fs.existsSync(path.join(root, 'package.json'))) {
  console.log('patch-postgres: node_modules/postgres is not installed; nothing to patch');
} else {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (version !== VERSION) {
    console.error(`patch-postgres: postgres.js ${version} is installed, the patch is for ${VERSION} (scripts/patch-postgres.mjs says what to check)`);
    process.exit(1);
  }
  for (const rel of ['src/connection.js', 'cjs/src/connection.js']) console.log(`patch-postgres: ${rel} ${patch(path.join(root, rel))}`);
}
