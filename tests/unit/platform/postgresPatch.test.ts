import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The patch of postgres.js that `npm install` applies (scripts/patch-postgres.mjs, postinstall;
 * docs/operations.md "The driver's patch") is in both copies the service may load. Its effect is
 * proven on PostgreSQL by tests/integration/platform/driverReconnectState.test.ts; this says at
 * once, without a database, when an install skipped it.
 */
describe("postgres.js as installed", () => {
  it.each(['src/connection.js', 'cjs/src/connection.js'])('%s carries the reconnect patch', (rel) => {
    const text = fs.readFileSync(path.join(process.cwd(), 'node_modules', 'postgres', rel), 'utf8');
    expect(text).toContain('agent-scheduler patch (scripts/patch-postgres.mjs)');
    expect(text).toContain('return resetSession(), reconnect()');
  });
});
