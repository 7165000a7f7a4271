import { and, eq, inArray, lte } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runTransaction } from '@/db/hot/driver';
import { claims, waitlistEntries } from '@/db/schema';
import { expireDueHolds, lockOwner, mailOffers, offerFreed } from '../claims';

/** How many owners with a waitlist one sweep expires holds of, owner by owner. */
const MAX_OWNERS_PER_SWEEP = 100;

/**
 * The sweeper's hold expiry (docs/reliability.md, docs/arbitration.md "Waitlist"). Owners someone
 * waits for: each in a transaction of its own that takes the owner lock first (as every
 * decision), expires its due holds and offers their time to the waitlist before COMMIT. Every
 * other owner's due holds: the batch as before (skipping rows a decision in progress holds).
 */
export async function sweepDueHolds(db: Db, now: Date): Promise<number> {
  const dueOwners = db
    .selectDistinct({ ownerId: claims.ownerId })
    .from(claims)
    .where(and(eq(claims.kind, 'hold'), eq(claims.status, 'active'), lte(claims.expiresAt, now)));
  const waitedFor = await db
    .selectDistinct({ ownerId: waitlistEntries.ownerId })
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.status, 'waiting'), inArray(waitlistEntries.ownerId, dueOwners)))
    .limit(MAX_OWNERS_PER_SWEEP);
  let expired = 0;
  for (const { ownerId } of waitedFor) {
    expired += await runTransaction(db, async (tx) => {
      await lockOwner(tx, ownerId);
      const n = await expireDueHolds(tx, ownerId, now);
      await offerFreed(tx);
      return n;
    });
  }
  // Requesters offered time (here, or by an operation whose mail did not go out) hear of it after COMMIT.
  await mailOffers(db, now);
  return expired + (await db.transaction((tx) => expireDueHolds(tx, null, now)));
}
