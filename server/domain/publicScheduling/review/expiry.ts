import { and, eq, lte } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingProposals, contactVerifications } from '@/db/schema';
import { writeProposalAudit } from './proposalAudit';

type ProposalRow = typeof bookingProposals.$inferSelect;

/** An unverified proposal past its 24 h reads as expired, whether or not anything flipped it yet. */
function verificationLapsed(p: Pick<ProposalRow, 'status' | 'expiresAt'>, now: Date): boolean {
  return p.status === 'pending_requester_verification' && p.expiresAt !== null && p.expiresAt <= now;
}

/**
 * Flip one lapsed proposal (and its verification) to expired; updated_at is
 * the moment it lapsed, so a lazy flip and the sweep agree, and so is the
 * `proposal.expire` audit row (actor system). Returns the row as it now reads.
 */
export async function expireLapsed(db: Executor, p: ProposalRow, now: Date): Promise<ProposalRow> {
  if (!verificationLapsed(p, now)) return p;
  const [row] = await db
    .update(bookingProposals)
    .set({ status: 'expired', updatedAt: p.expiresAt! })
    .where(and(eq(bookingProposals.id, p.id), eq(bookingProposals.status, 'pending_requester_verification')))
    .returning();
  await db.update(contactVerifications).set({ status: 'expired' }).where(and(eq(contactVerifications.proposalId, p.id), eq(contactVerifications.status, 'pending')));
  // Only the flip that happened writes the row (a concurrent read may have flipped it first); the clock acted.
  if (row) await writeProposalAudit(db, row, { action: 'proposal.expire', actor: { kind: 'system' }, at: p.expiresAt! });
  return row ?? { ...p, status: 'expired', updatedAt: p.expiresAt! };
}

/**
 * The sweep: expire every lapsed unverified proposal (at most `batch` per
 * call). Correctness never depends on it: reads judge expiry by the clock.
 */
export async function sweepExpiredProposals(db: Executor, now: Date, batch = 500): Promise<number> {
  const due = await db
    .select()
    .from(bookingProposals)
    .where(and(eq(bookingProposals.status, 'pending_requester_verification'), lte(bookingProposals.expiresAt, now)))
    .limit(batch);
  let n = 0;
  for (const p of due) if ((await expireLapsed(db, p, now)).status === 'expired') n++;
  return n;
}
