/**
 * Run by stdio.test.ts as its own process (`tsx`), on the embedded database in
 * PGLITE_DIR, before the MCP server opens it (PGlite is one process at a time):
 * a customer, an owner and a read-only agent; writes their keys to SEED_OUT.
 */
import fs from 'node:fs';
import { closeDb } from '@/server/db';
import { newAgent, newCustomer } from '../../helpers/app';
import { setupOwner } from '../scheduling/fixtures';

async function main() {
  const admin = await newCustomer();
  const owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
  const reader = await newAgent(admin, ['read_availability']);
  fs.writeFileSync(process.env.SEED_OUT!, JSON.stringify({ adminKey: admin.key, readerKey: reader.key, owner }));
  await closeDb();
}
void main();
