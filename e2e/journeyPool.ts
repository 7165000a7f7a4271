import fs from 'node:fs';
import path from 'node:path';

/** A customer made for one journey before the embedded-database server started (e2e/seed-journeys.ts). */
export type JourneyCustomer = { customer_id: string; agent_id: string; api_key: string; owner_email: string; owner_name: string; owner_password: string };

/**
 * The next unclaimed customer of the run's pool (E2E_JOURNEY_FILE, written by e2e/seed-journeys.ts
 * before the server started; playwright.config.ts sizes it), or null on a run without one
 * (PostgreSQL: journeys mint their own with the CLI). A claim is a directory beside the file:
 * creating it is atomic, so the two workers never hand out the same customer.
 */
export function claimJourneyCustomer(): JourneyCustomer | null {
  const file = process.env.E2E_JOURNEY_FILE;
  if (!file) return null;
  const pool: JourneyCustomer[] = JSON.parse(fs.readFileSync(file, 'utf8'));
  const claims = `${file}.claims`;
  fs.mkdirSync(claims, { recursive: true });
  for (const [i, customer] of pool.entries()) {
    try {
      fs.mkdirSync(path.join(claims, String(i)));
      return customer;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`all ${pool.length} journey customers of this run are taken: raise E2E_JOURNEY_CUSTOMERS (playwright.config.ts)`);
}
