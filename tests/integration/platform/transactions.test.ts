import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { PG_EXCLUSION_VIOLATION, pgErrorInfo } from '@/db/errors';
import { owners } from '@/db/schema';
import { commitWithLastStatements, queryRows } from '@/db/statements';
import { claimRow, insertClaim, loadClaims } from '@/server/domain/claims/claimStore';
import { newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { driver, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

/**
 * The transaction machinery under the claim path (db/drivers/preparedStatements.ts and
 * db/statements.ts): BEGIN pipelined with the first statements, COMMIT sent with the last
 * ones, hand-written statements mapped like drizzle's. On PGlite commitWithLastStatements does
 * nothing and the transaction commits when its callback returns; the outcomes are the same.
 */
let admin: TestCustomer;
let ownerId: string;
beforeAll(async () => {
  admin = await newCustomer();
  ownerId = (await createOwner(await getDb(), admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' })).id;
});

const T = (h: number, m = 0) => new Date(Date.UTC(2031, 1, 3, h, m));
const booking = (start: Date, end: Date) => ({
  id: newId(),
  customerId: admin.customerId,
  ownerId,
  kind: 'booking' as const,
  status: 'confirmed' as const,
  startAt: start,
  endAt: end,
  createdAt: new Date(),
  updatedAt: new Date(),
});

async function claimIds(from: Date, to: Date): Promise<string[]> {
  return (await loadClaims(await getDb(), ownerId, from, to, new Date())).map((c) => c.id);
}

describe('claim transactions', () => {
  it('commits the statements sent with an early COMMIT, and the row reads back as drizzle reads it', async () => {
    const db = await getDb();
    const b = booking(T(9), T(10));
    await db.transaction(async (tx) => {
      const written = insertClaim(tx, b);
      commitWithLastStatements(tx);
      await written;
    });
    expect(await claimIds(T(8), T(11))).toEqual([b.id]);
    const rows = await queryRows(db, 'select * from claims where id = $1', [b.id]);
    expect(rows).toHaveLength(1);
    const { claims } = await import('@/db/schema');
    const [viaDrizzle] = await db.select().from(claims).where(eq(claims.id, b.id));
    expect(viaDrizzle).toEqual(claimRow(b));
  });

  it('turns an early COMMIT into a rollback when a statement before it fails, and the failure surfaces', async () => {
    const db = await getDb();
    const first = booking(T(12), T(13));
    await insertClaim(db, first);
    const marker = `rollback-${newId()}`;
    let error: unknown = null;
    try {
      await db.transaction(async (tx) => {
        await queryRows(tx, 'update owners set name = $2 where id = $1', [ownerId, marker]);
        const written = insertClaim(tx, booking(T(12, 30), T(13, 30))); // overlaps `first`
        commitWithLastStatements(tx);
        await written;
      });
    } catch (err) {
      error = err;
    }
    expect(pgErrorInfo(error)?.code).toBe(PG_EXCLUSION_VIOLATION);
    const [owner] = await db.select().from(owners).where(eq(owners.id, ownerId));
    expect(owner.name, 'the update before the failed insert was rolled back').not.toBe(marker);
    expect(await claimIds(T(12), T(14))).toEqual([first.id]);
  });

  it('refuses a statement sent after the early COMMIT (it would run outside the transaction)', async () => {
    if ((await driver()) !== 'postgres') return; // PGlite: the early COMMIT is a no-op
    const db = await getDb();
    const b = booking(T(15), T(16));
    await expect(
      db.transaction(async (tx) => {
        const written = insertClaim(tx, b);
        commitWithLastStatements(tx);
        await written;
        await queryRows(tx, 'select 1', []);
      }),
    ).rejects.toThrow(/after the transaction committed/);
    // The claim itself was committed before the stray statement.
    expect(await claimIds(T(15), T(16))).toEqual([b.id]);
  });

  it('rolls back everything when the callback throws after pipelined statements', async () => {
    const db = await getDb();
    const b = booking(T(17), T(18));
    await expect(
      db.transaction(async (tx) => {
        await Promise.all([insertClaim(tx, b), queryRows(tx, 'select 1', [])]);
        throw new Error('domain decided otherwise');
      }),
    ).rejects.toThrow('domain decided otherwise');
    expect(await claimIds(T(17), T(18))).toEqual([]);
  });
});
