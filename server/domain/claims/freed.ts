import type { Executor } from '@/db/client';

/**
 * Time a transaction freed, kept until it is offered to the waitlist before COMMIT (waitlist/offers.ts;
 * docs/arbitration.md "Waitlist"). Apart so that the frees (claimTarget.ts, claimDecision.ts, and
 * the frees above claims/) note what they free without importing the offer, which places holds
 * through claimTarget.ts and windowHold.ts.
 */

/** A stretch of an owner's time a transaction freed; `holdId`: the hold whose end freed it (its offer, if any, lapses). */
export type Freed = { ownerId: string; start: Date; end: Date; holdId?: string | null };

const freedOf = new WeakMap<Executor, { now: Date; freed: Freed[] }>();

/** Remember time this transaction freed; offered by `offerFreed` before it commits. */
export function noteFreed(tx: Executor, now: Date, freed: readonly Freed[]): void {
  if (!freed.length) return;
  const noted = freedOf.get(tx);
  if (noted) {
    noted.freed.push(...freed);
    if (now > noted.now) noted.now = now;
  } else freedOf.set(tx, { now, freed: [...freed] });
}

/** What this transaction freed, forgotten once taken (waitlist/offers.ts). */
export function takeFreed(tx: Executor): { now: Date; freed: Freed[] } | undefined {
  const noted = freedOf.get(tx);
  freedOf.delete(tx);
  return noted;
}
