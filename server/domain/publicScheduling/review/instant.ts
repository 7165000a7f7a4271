import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { bookingProposals, claims, owners, publicMeetingTypes } from '@/db/schema';
import { meetingMovedMessage, sendMail } from '../../email';
import { isDomainError } from '../../errors';
import { log } from '@/server/log';
import { announceForReview } from './announce';
import { approveProposal } from './approve';

/**
 * A proposal that just reached `pending_review` (docs/public-scheduling.md
 * "Booking instantly"): when its meeting type books instantly, the owner's
 * approval runs at once through `approveProposal` with the requested time
 * and no preemption; accepted, it is booked (the requester gets the usual
 * acceptance mail). Anything else (the type does not book instantly, or
 * arbitration refuses) leaves it waiting for review, and the owner is told.
 */
export async function afterPendingReview(db: Db, proposalId: string, baseUrl: string | undefined, now: Date): Promise<'booked' | 'pending_review'> {
  const [row] = await db
    .select({ p: bookingProposals, instant: publicMeetingTypes.bookInstantly, ownerEmail: owners.email, ownerTimeZone: owners.timeZone })
    .from(bookingProposals)
    .innerJoin(owners, eq(owners.id, bookingProposals.ownerId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .where(eq(bookingProposals.id, proposalId))
    .limit(1);
  if (row?.instant && row.p.status === 'pending_review' && row.p.requestedStart && row.p.requestedEnd) {
    try {
      // The owner's own standing decision (the type's "book instantly"): audited as the owner's approval.
      const owner = { kind: 'owner' as const, ownerId: row.p.ownerId, customerId: row.p.customerId, email: row.ownerEmail };
      // A request to move (docs/public-scheduling.md "Asking to move"): the owner hears the meeting moved, in their zone.
      const [was] = row.p.movesBookingId ? await db.select({ start: claims.startAt, end: claims.endAt, title: claims.title }).from(claims).where(eq(claims.id, row.p.movesBookingId)) : [];
      const done = await approveProposal(db, owner, { proposalId, noPreemption: true }, now);
      if (was && done.start && done.end) {
        const requester = row.p.requesterName ?? row.p.requesterEmail ?? 'The requester';
        await sendMail(meetingMovedMessage(row.ownerEmail, { title: was.title, ownerName: null, start: new Date(done.start), end: new Date(done.end), timeZone: row.ownerTimeZone, requester, from: { start: was.start, end: was.end } }));
      }
      return 'booked';
    } catch (err) {
      // Refused (taken meanwhile, would preempt, allocation full, calendar trouble): the owner decides.
      if (!isDomainError(err)) log.error('book instantly failed', { proposalId, err });
    }
  }
  if (baseUrl) await announceForReview(db, proposalId, baseUrl);
  return 'pending_review';
}
