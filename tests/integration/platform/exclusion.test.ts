import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { PG_DEADLOCK, PG_EXCLUSION_VIOLATION, pgErrorInfo } from '@/db/errors';
import { claims, owners } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { driver, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

let admin: TestCustomer;
let ownerId: string;
beforeAll(async () => {
  admin = await newCustomer();
  ownerId = (await createOwner(await getDb(), admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' })).id;
});

const T = (h: number, m = 0) => new Date(Date.UTC(2031, 0, 6, h, m));

function claim(start: Date, end: Date, kind: 'hold' | 'booking' = 'booking', status: 'active' | 'confirmed' | 'cancelled' | 'expired' = kind === 'hold' ? 'active' : 'confirmed', owner = ownerId) {
  // A hold carries its scope and expiry (claims_hold_fields).
  const hold = kind === 'hold' ? { holdScope: 'candidate' as const, expiresAt: new Date(end.getTime() + 3_600_000) } : {};
  return { id: newId(), customerId: admin.customerId, ownerId: owner, kind, status, startAt: start, endAt: end, ...hold };
}

async function insertError(row: ReturnType<typeof claim>) {
  try {
    await (await getDb()).insert(claims).values(row);
    return null;
  } catch (err) {
    return pgErrorInfo(err);
  }
}

describe('the database refuses overlapping active claims (exclusion constraint)', () => {
  it('rejects a hold overlapping a confirmed booking, and a booking overlapping an active hold', async () => {
    expect(await insertError(claim(T(10), T(11)))).toBeNull();
    const e1 = await insertError(claim(T(10, 30), T(11, 30), 'hold'));
    expect(e1?.code).toBe(PG_EXCLUSION_VIOLATION);
    expect(e1?.constraint).toBe('claims_no_overlap');
    expect(await insertError(claim(T(13), T(14), 'hold'))).toBeNull();
    expect((await insertError(claim(T(13, 59), T(15))))?.code).toBe(PG_EXCLUSION_VIOLATION);
  });

  it('allows touching intervals ([10:00, 11:00) then [11:00, 12:00))', async () => {
    expect(await insertError(claim(T(16), T(17)))).toBeNull();
    expect(await insertError(claim(T(17), T(18)))).toBeNull();
  });

  it('ignores inactive claims and other owners', async () => {
    expect(await insertError(claim(T(20), T(21), 'booking', 'cancelled'))).toBeNull();
    expect(await insertError(claim(T(20), T(21), 'hold', 'expired'))).toBeNull();
    expect(await insertError(claim(T(20), T(21)))).toBeNull();
    const other = await createOwner(await getDb(), admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
    expect(await insertError(claim(T(20), T(21), 'booking', 'confirmed', other.id))).toBeNull();
  });

  it('rejects re-activating a claim into an occupied interval', async () => {
    const db = await getDb();
    const cancelled = claim(T(22), T(23), 'booking', 'cancelled');
    await db.insert(claims).values(cancelled);
    await db.insert(claims).values(claim(T(22, 30), T(23, 30)));
    const err = await db.update(claims).set({ status: 'confirmed' }).where(eq(claims.id, cancelled.id)).then(() => null, pgErrorInfo);
    expect(err?.code).toBe(PG_EXCLUSION_VIOLATION);
  });

  it('rejects an empty or inverted interval', async () => {
    expect((await insertError(claim(T(9), T(9))))?.code).toBe('23514');
  });

  it('lets exactly one of 50 concurrent overlapping inserts win (PostgreSQL)', async (ctx) => {
    if ((await driver()) !== 'postgres') ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const db = await getDb();
    const owner = await createOwner(db, admin.customerId, { email: uniqueEmail('race'), time_zone: 'UTC' });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => db.insert(claims).values(claim(T(9, i % 30), T(10, i % 30), i % 2 ? 'hold' : 'booking', i % 2 ? 'active' : 'confirmed', owner.id))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    // Two inserts that each wait for the other's index entry are a deadlock,
    // and PostgreSQL refuses one of them with 40P01 rather than 23P01: still a
    // refusal, never a second winner. The claim path retries 40P01 (docs/architecture.md).
    for (const r of results) if (r.status === 'rejected') expect([PG_EXCLUSION_VIOLATION, PG_DEADLOCK]).toContain(pgErrorInfo(r.reason).code);
    const rows = await db.select().from(claims).where(eq(claims.ownerId, owner.id));
    expect(rows).toHaveLength(1);
    expect((await db.select().from(owners).where(eq(owners.id, owner.id))).length).toBe(1);
  });
});
