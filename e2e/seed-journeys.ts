/**
 * `tsx e2e/seed-journeys.ts COUNT`: the customers the journeys of an embedded-database run
 * use, made before the server opens the database (PGLITE_DIR; the embedded database admits one
 * process, so nothing can mint a customer or set a password while the server runs). Each has an
 * admin API key and one owner (Europe/Berlin) with a dashboard password; stdout carries one JSON
 * array of them, which e2e/journeyPool.ts hands out, one customer per journey: the journeys keep
 * apart by customer as they do on PostgreSQL, where each mints its own (docs/testing.md "End to end on the embedded database").
 */
import { randomBytes } from 'node:crypto';
import { closeDb, getDbHandle } from '@/server/db';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { createOwner } from '@/server/domain/ownerService';
import { setOwnerPassword } from '@/server/domain/passwords';
import type { JourneyCustomer } from './journeyPool';

async function main(count: number): Promise<void> {
  // stdout is the JSON array only; migration notices and logs go to stderr.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const { db } = await getDbHandle();
  const run = randomBytes(3).toString('hex');
  const made: JourneyCustomer[] = [];
  for (let i = 0; i < count; i++) {
    const suffix = `${run}-${i}`;
    const owner_email = `journey-${suffix}@e2e.example`;
    const owner_name = 'Ada Lovelace';
    const owner_password = `pw-${randomBytes(12).toString('base64url')}`;
    const boot = await db.transaction(async (tx) => {
      const b = await bootstrapCustomer(tx, `E2E journey ${suffix}`);
      await createOwner(tx, b.customer_id, { email: owner_email, name: owner_name, time_zone: 'Europe/Berlin' });
      await setOwnerPassword(tx, b.customer_id, owner_email, owner_password);
      return b;
    });
    made.push({ customer_id: boot.customer_id, agent_id: boot.agent_id, api_key: boot.api_key, owner_email, owner_name, owner_password });
  }
  await closeDb();
  write(JSON.stringify(made) + '\n');
}

const count = Number(process.argv[2]);
if (!Number.isInteger(count) || count < 1) {
  process.stderr.write('usage: tsx e2e/seed-journeys.ts COUNT\n');
  process.exit(2);
}
main(count).catch((err) => {
  process.stderr.write(`seed-journeys: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
