import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { getDb } from '@/server/db';

let db: Awaited<ReturnType<typeof getDb>>;
beforeAll(async () => {
  db = await getDb(); // migrates (slow on PGlite): in the hook, with its longer timeout
});

/**
 * Deleting a claim makes PostgreSQL look up, for every foreign key that points at claims, the
 * rows that reference it. Without an index led by the referencing column that look-up is a scan
 * of the referencing table per deleted claim, and deleting a customer's claims goes quadratic
 * (over 14 minutes for 80,000 claims; docs/benchmarks.md, "Deleting a customer"; the figure is
 * bench/delete-customer.ts's). Every such key, the claims' own self-references included, has one.
 */
describe('every foreign key that points at claims has an index led by its column', () => {
  it('claims.hold_id, promoted_booking_id, preempted_by_claim_id and the other tables', async () => {
    const res = await db.execute(sql`
      select c.conname as name, c.conrelid::regclass::text as tbl, a.attname as col,
        exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1]) as indexed
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and c.confrelid = 'claims'::regclass`);
    const rows = (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as { name: string; tbl: string; col: string; indexed: boolean }[];
    const keys = rows.map((r) => `${r.tbl}.${r.col}`);
    // The self-references the finding named are among them (a renamed column would otherwise pass unnoticed).
    expect(keys).toEqual(expect.arrayContaining(['claims.hold_id', 'claims.promoted_booking_id', 'claims.preempted_by_claim_id', 'booking_proposals.booking_id']));
    expect(rows.filter((r) => !r.indexed).map((r) => `${r.name} (${r.tbl}.${r.col})`)).toEqual([]);
  });
});
