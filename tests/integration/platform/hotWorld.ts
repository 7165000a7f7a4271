import { getDb } from '@/server/db';
import type { NewClaim } from '@/db/hot/claims';
import { meetingClasses } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

/**
 * What the hot-statement tests (hotStatements.test.ts, hotMove.test.ts) work in: a customer, one
 * owner in UTC and one meeting class of priority 40 named `className` (with `classOver` added).
 */
export type HotWorld = { admin: TestCustomer; owner: { id: string; email: string }; classId: string };

export async function hotWorld(className: string, classOver: Partial<typeof meetingClasses.$inferInsert> = {}): Promise<HotWorld> {
  const db = await getDb();
  const admin = await newCustomer();
  const o = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
  const classId = newId();
  await db.insert(meetingClasses).values({ id: classId, customerId: admin.customerId, name: className, priority: 40, ...classOver });
  return { admin, owner: { id: o.id, email: o.email }, classId };
}

/** A confirmed booking of the world's owner, created and updated now, with `over` on top. */
export function bookingRow(world: HotWorld, over: Partial<NewClaim> & { startAt: Date; endAt: Date }): NewClaim {
  const now = new Date();
  return { id: newId(), customerId: world.admin.customerId, ownerId: world.owner.id, kind: 'booking', status: 'confirmed', createdAt: now, updatedAt: now, ...over };
}
