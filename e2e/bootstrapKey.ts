import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { claimJourneyCustomer } from './journeyPool';
import { databaseUrl, PROJECT_ROOT } from './servers';

const run = promisify(execFile);

/**
 * The admin key of a customer of the journey's own: with PostgreSQL a new
 * customer minted by the CLI on the database the servers share; with the
 * embedded database (one process at a time) one of the customers
 * playwright.config.ts made before the server started (e2e/journeyPool.ts).
 */
export async function bootstrapKey(customer: string): Promise<{ customer_id: string; agent_id: string; api_key: string }> {
  const claimed = databaseUrl ? null : claimJourneyCustomer();
  if (claimed) return { customer_id: claimed.customer_id, agent_id: claimed.agent_id, api_key: claimed.api_key };
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
