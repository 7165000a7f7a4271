import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { PG_EXCLUSION_VIOLATION, pgErrorInfo } from '@/db/errors';
import { owners } from '@/db/schema';
import { claimRow, insertClaim } from '@/db/hot/claims';
import { defer, queryRows, runTransaction } from '@/db/hot/driver';
import { loadClaims } from '@/server/domain/claims/claimStore';
import { newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { driver, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

/**
 * The transaction machinery under the claim path (db/drivers/preparedStatements.ts and
 * db/hot/driver.ts): BEGIN pipelined with the first statements; statements deferred by the
 * code that issued them are awaited by runTransaction, with COMMIT sent right behind them;
 * a deferred statement's failure is the transaction's failure. On PGlite there is no early
 * COMMIT; the outcomes are the same.
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

async function ownerName(): Promise<string | null> {
  const [owner] = await (await getDb()).select().from(owners).where(eq(owners.id, ownerId));
  return owner.name;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('claim transactions', () => {
  it('commits deferred statements (COMMIT goes out behind them), and the row reads back as drizzle reads it', async () => {
    const db = await getDb();
    const b = booking(T(9), T(10));
    const result = await runTransaction(db, async (tx) => {
      defer(tx, insertClaim(tx, b));
      return 'returned before the insert was answered';
    });
    expect(result).toBe('returned before the insert was answered');
    expect(await claimIds(T(8), T(11))).toEqual([b.id]);
    const { claims } = await import('@/db/schema');
    const [viaDrizzle] = await db.select().from(claims).where(eq(claims.id, b.id));
    expect(viaDrizzle).toEqual(claimRow(b));
  });

  it('rolls back when a deferred statement fails, and its failure surfaces', async () => {
    const db = await getDb();
    const first = booking(T(12), T(13));
    await insertClaim(db, first);
    const marker = `rollback-${newId()}`;
    const error = await failure(
      runTransaction(db, async (tx) => {
        await queryRows(tx, 'update owners set name = $2 where id = $1', [ownerId, marker]);
        defer(tx, insertClaim(tx, booking(T(12, 30), T(13, 30)))); // overlaps `first`
      }),
    );
    expect(pgErrorInfo(error).code).toBe(PG_EXCLUSION_VIOLATION);
    expect(await ownerName(), 'the update before the failed insert was rolled back').not.toBe(marker);
    expect(await claimIds(T(12), T(14))).toEqual([first.id]);
  });

  it('surfaces the failed deferred statement, not the later "transaction is aborted" error of a statement awaited after it', async () => {
    const db = await getDb();
    const first = booking(T(14), T(15));
    await insertClaim(db, first);
    const marker = `aborted-${newId()}`;
    const error = await failure(
      runTransaction(db, async (tx) => {
        defer(tx, insertClaim(tx, booking(T(14, 30), T(15, 30)))); // overlaps `first`
        await queryRows(tx, 'update owners set name = $2 where id = $1', [ownerId, marker]);
      }),
    );
    expect(pgErrorInfo(error).code).toBe(PG_EXCLUSION_VIOLATION);
    expect(await ownerName()).not.toBe(marker);
  });

  it('surfaces the cause, not the "transaction is aborted" of a deferred statement listed before it', async () => {
    const db = await getDb();
    const first = booking(T(19), T(20));
    await insertClaim(db, first);
    const marker = `listed-first-${newId()}`;
    const error = await failure(
      runTransaction(db, async (tx) => {
        // A builder query is queued a few microtasks after it is issued: on PostgreSQL the insert runs first.
        defer(tx, tx.update(owners).set({ name: marker }).where(eq(owners.id, ownerId)));
        defer(tx, insertClaim(tx, booking(T(19, 30), T(20, 30)))); // overlaps `first`
      }),
    );
    expect(pgErrorInfo(error).code).toBe(PG_EXCLUSION_VIOLATION);
    expect(await ownerName()).not.toBe(marker);
  });

  it('refuses a statement sent after the early COMMIT (it would run outside the transaction)', async () => {
    if ((await driver()) !== 'postgres') return; // PGlite: no early COMMIT
    const db = await getDb();
    const b = booking(T(15), T(16));
    let leaked: Promise<unknown> | null = null;
    await runTransaction(db, async (tx) => {
      defer(tx, insertClaim(tx, b));
      // Sent once the callback has returned, i.e. after COMMIT went out.
      leaked = Promise.resolve().then(() => new Promise((r) => setImmediate(r))).then(() => queryRows(tx, 'select 1', []));
      leaked.catch(() => {});
    });
    const err = (await failure(leaked!)) as Error;
    expect(err.message).toMatch(/after the transaction committed/);
    expect(await claimIds(T(15), T(16))).toEqual([b.id]);
  });

  it('rolls back everything when the callback throws after deferred statements', async () => {
    const db = await getDb();
    const b = booking(T(17), T(18));
    await expect(
      runTransaction(db, async (tx) => {
        defer(tx, insertClaim(tx, b));
        await queryRows(tx, 'select 1', []);
        throw new Error('domain decided otherwise');
      }),
    ).rejects.toThrow('domain decided otherwise');
    expect(await claimIds(T(17), T(18))).toEqual([]);
  });

  it('nested in a transaction (a handler in the REST wrapper\'s), is a savepoint: the outer transaction goes on and commits it all', async () => {
    const db = await getDb();
    const b = booking(T(22), T(23));
    const marker = `nested-${newId()}`;
    await db.transaction(async (outer) => {
      await runTransaction(outer as typeof db, async (tx) => {
        defer(tx, insertClaim(tx, b));
        return null;
      });
      // Refused if the nested one had sent the outer transaction's COMMIT early.
      await queryRows(outer, 'update owners set name = $2 where id = $1', [ownerId, marker]);
    });
    expect(await claimIds(T(21, 30), T(23, 30))).toEqual([b.id]);
    expect(await ownerName()).toBe(marker);
  });

  it('defers only inside runTransaction', async () => {
    const db = await getDb();
    await db.transaction(async (tx) => {
      expect(() => defer(tx, Promise.resolve())).toThrow(/only inside runTransaction/);
    });
  });
});
