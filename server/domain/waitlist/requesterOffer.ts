import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { bookingProposals, claims, owners, waitlistEntries } from '@/db/schema';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { holdStatus, lockOwner, noteFreed, offerProposalToken, ownerQueueKey, runClaimOperation, type Answer } from '../claims';
import { afterPendingReview } from '../publicScheduling/review/instant';
import { writeProposalAudit } from '../publicScheduling/review/proposalAudit';
import { entryByToken, publicWaitlistPage, type EntryRow, type PublicWaitlistPage } from './requesterEntries';

/**
 * A requester's answer to a waitlist offer, and leaving (docs/public-scheduling.md "Waitlist"),
 * on the entry's page. Both run on the one claim path (the claim runner: the owner's queue, the
 * owner locked, the time a decline frees offered to the next entry before COMMIT).
 *
 * Confirm files the requester's request on the offered hold, as an agent's held booking waits
 * for approval (claims/heldRequest.ts): a public proposal naming the hold, the hold kept until
 * the meeting's start. Then the type decides as for any public request (review/instant.ts): a
 * type that books instantly approves it at once (the hold promoted through the claim runner,
 * publicScheduling/review/heldApproval.ts), any other waits for the owner's review with its time held.
 */

const notOpen = () => new DomainError('offer_not_open', 'The waitlist offer is no longer held for you');

type Owned = { customerId: string; email: string };

async function ownerOf(db: Db, e: EntryRow): Promise<Owned> {
  const [o] = await db.select({ email: owners.email }).from(owners).where(eq(owners.id, e.ownerId));
  return { customerId: e.customerId, email: o.email };
}

/** The entry (locked, with its owner locked first) and its live offered hold, or offer_not_open. */
async function lockedOffer(tx: Tx, token: string, now: Date): Promise<{ e: EntryRow; hold: typeof claims.$inferSelect }> {
  const first = await entryByToken(tx, token);
  await lockOwner(tx, first.ownerId);
  const e = await entryByToken(tx, token, true);
  if (e.status !== 'offered' || e.proposalId || !e.holdId) throw notOpen();
  const [hold] = await tx.select().from(claims).where(eq(claims.id, e.holdId)).for('update');
  if (!hold || holdStatus(hold, now) !== 'active') throw notOpen();
  return { e, hold };
}

/** Confirm the offered time: the request is filed on the hold, then booked or sent for review as the type says. */
export async function confirmWaitlistOffer(db: Db, token: string, now: Date): Promise<PublicWaitlistPage> {
  const owned = await ownerOf(db, await entryByToken(db, token));
  const proposalId = newId(now.getTime());
  const run = async (tx: Tx): Promise<Answer<{ baseUrl: string }>> => {
    const { e, hold } = await lockedOffer(tx, token, now);
    // Kept until the meeting's start, the offer's window narrowed to the held time: the owner (or the type) decides before then.
    await tx.update(claims).set({ holdScope: 'candidate', coverage: null, expiresAt: hold.startAt, updatedAt: now }).where(eq(claims.id, hold.id));
    const [row] = await tx
      .insert(bookingProposals)
      .values({
        id: proposalId,
        customerId: e.customerId,
        ownerId: e.ownerId,
        origin: 'public',
        linkId: e.linkId,
        meetingTypeId: e.meetingTypeId,
        meetingClassId: e.meetingClassId,
        status: 'pending_review',
        requesterEmail: e.requesterEmail,
        requesterName: e.requesterName,
        requesterTimeZone: e.requesterTimeZone,
        requesterLocale: e.requesterLocale,
        durationMinutes: e.durationMinutes,
        requestedStart: hold.startAt,
        requestedEnd: hold.endAt,
        accessTokenHash: offerProposalToken(token).hash,
        holdId: hold.id,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.update(waitlistEntries).set({ proposalId, updatedAt: now }).where(eq(waitlistEntries.id, e.id));
    // The requester's own act (the email the offer was mailed to), as any public request's submission.
    await writeProposalAudit(tx, row, { action: 'proposal.submit', actor: { kind: 'requester', email: e.requesterEmail! }, ownerEmail: owned.email, at: now });
    return { ok: true, value: { baseUrl: e.baseUrl! } };
  };
  const { baseUrl } = await runClaimOperation(db, { queueKey: ownerQueueKey(owned.customerId, owned.email), action: 'waitlist.confirm', run });
  await afterPendingReview(db, proposalId, baseUrl, now);
  return publicWaitlistPage(db, token, now);
}

/**
 * Decline the offered time, or leave the waitlist: the entry is cancelled; an offered hold is
 * released and its time offered to the next entry in the same transaction. Leaving twice answers
 * the page again; a confirmed entry cannot be left here (its request's status page withdraws it).
 */
export async function leaveWaitlistByToken(db: Db, token: string, now: Date): Promise<PublicWaitlistPage> {
  const first = await entryByToken(db, token);
  if (first.status === 'waiting') {
    await db
      .update(waitlistEntries)
      .set({ status: 'cancelled', updatedAt: now })
      .where(and(eq(waitlistEntries.id, first.id), eq(waitlistEntries.status, 'waiting')));
  }
  const page = await publicWaitlistPage(db, token, now);
  if (page.status !== 'offered') return page;
  const owned = await ownerOf(db, first);
  const run = async (tx: Tx): Promise<Answer<null>> => {
    const { e, hold } = await lockedOffer(tx, token, now);
    await tx.update(claims).set({ status: 'released', statusReason: 'declined by the requester (waitlist offer)', updatedAt: now }).where(eq(claims.id, hold.id));
    await tx.update(waitlistEntries).set({ status: 'cancelled', updatedAt: now }).where(eq(waitlistEntries.id, e.id));
    // The claim runner offers the released time to the next entry before COMMIT.
    noteFreed(tx, now, [{ ownerId: hold.ownerId, start: hold.startAt, end: hold.endAt, holdId: hold.id }]);
    return { ok: true, value: null };
  };
  await runClaimOperation(db, { queueKey: ownerQueueKey(owned.customerId, owned.email), action: 'waitlist.decline', run });
  return publicWaitlistPage(db, token, now);
}
