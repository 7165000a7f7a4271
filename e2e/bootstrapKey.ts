import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { databaseUrl, PROJECT_ROOT } from './servers';

const run = promisify(execFile);

/** A new customer's admin key, minted by the CLI on the database the servers share (PostgreSQL runs only). */
export async function bootstrapKey(customer: string): Promise<{ customer_id: string; agent_id: string; api_key: string }> {
  const { stdout } = await run('npm', ['run', '-s', 'cli', '--', 'bootstrap', '--customer', customer, '--json'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
    timeout: 90_000,
  });
  return JSON.parse(stdout);
}
