/**
 * MCP server over stdio for one agent: `SCHEDULER_API_KEY=ak_... npm run -s mcp`
 * (docs/agents.md "MCP"). Uses the configured database (DATABASE_URL, else
 * the embedded PGlite under PGLITE_DIR; the embedded one cannot be shared
 * with a running `npm run dev`: point the MCP client at /mcp instead).
 */
import { closeDb } from '@/server/db';
import { serveMcpStdio } from '@/server/mcp/stdio';

// stdout carries the protocol: everything else (our JSON log lines included) goes to stderr.
console.log = console.error;
console.info = console.error;

serveMcpStdio().catch(async (err) => {
  console.error(err instanceof Error ? err.message : err);
  await closeDb().catch(() => {});
  process.exit(1);
});
process.stdin.on('end', () => {
  void closeDb().finally(() => process.exit(0));
});
