import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { databaseUrl, PROJECT_ROOT } from './servers';

const run = promisify(execFile);

/**
 * A customer's admin key: with PostgreSQL a new customer minted by the CLI on
 * the database the servers share; with the embedded database (one process at
 * a time) the demo customer playwright.config.ts seeded before the server
 * started (E2E_KEY_FILE, `cli seed-demo --json`), shared by the tests, which
 * keep apart by their own owners and aliases.
 */
export async function bootstrapKey(customer: string): Promise<{ customer_id: string; agent_id: string; api_key: string }> {
  if (!databaseUrl && process.env.E2E_KEY_FILE) return JSON.parse(fs.readFileSync(process.env.E2E_KEY_FILE, 'utf8'));
  const { stdout } = await run('npm', ['run', '-s', 'cli', '--', 'bootstrap', '--customer', customer, '--json'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
    timeout: 90_000,
  });
  return JSON.parse(stdout);
}

/** The seeded demo customer of an embedded-database run (owner_email, owner_password, api_key, ...), else null. */
export function seededDemo(): Record<string, string> | null {
  if (databaseUrl || !process.env.E2E_KEY_FILE) return null;
  return JSON.parse(fs.readFileSync(process.env.E2E_KEY_FILE, 'utf8'));
}
