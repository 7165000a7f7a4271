import { eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, bookingProposals, claims, owners, publicMeetingTypes } from '@/db/schema';
import { moveToReviewMessage, proposalToReviewMessage, sendMail } from '../../email';

/** The review page of a proposal in the dashboard. */
function reviewUrl(baseUrl: string, proposalId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/dashboard/proposals/${proposalId}`;
}

/**
 * Tell the owner that a proposal waits for their review (docs/public-scheduling.md
 * "Mail"): one line (who asks for what, when, in the owner's zone) and the
 * review page's link. Called after the commit that made the proposal
 * `pending_review` (contact verified, a credential that skips verification,
 * an agent's proposal); mail never fails the request. A collective type's
 * proposal is announced to every host (docs/public-scheduling.md "Several hosts").
 */
export async function announceForReview(db: Executor, proposalId: string, baseUrl: string): Promise<void> {
  const [row] = await db
    .select({ p: bookingProposals, ownerEmail: owners.email, timeZone: owners.timeZone, typeTitle: publicMeetingTypes.title, agentName: agents.name })
    .from(bookingProposals)
    .innerJoin(owners, eq(owners.id, bookingProposals.ownerId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .leftJoin(agents, eq(agents.id, bookingProposals.agentId))
    .where(eq(bookingProposals.id, proposalId))
    .limit(1);
  if (!row || row.p.status !== 'pending_review') return;
  const p = row.p;
  const requester = p.origin === 'agent' ? `The agent ${row.agentName ?? ''}`.trim() : (p.requesterName ?? p.requesterEmail ?? 'A requester');
  if (p.movesBookingId) {
    // A request to move a booked meeting: its current time and the one asked for (docs/public-scheduling.md "Asking to move").
    const [booking] = await db.select({ start: claims.startAt, end: claims.endAt, title: claims.title }).from(claims).where(eq(claims.id, p.movesBookingId));
    if (!booking) return;
    const m = { title: booking.title ?? row.typeTitle, ownerName: null, start: p.requestedStart, end: p.requestedEnd, timeZone: row.timeZone, requester, from: { start: booking.start, end: booking.end } };
    await sendMail(moveToReviewMessage(row.ownerEmail, m, reviewUrl(baseUrl, p.id)));
    return;
  }
  const first = p.origin === 'agent' ? p.candidates[0] : null;
  const start = first ? new Date(first.start) : p.requestedStart;
  const end = first ? new Date(first.end) : p.requestedEnd;
  // A collective type's proposal is in every host's inbox: each host is told, in their own zone.
  const hosts = p.hostOwnerIds?.length ? await db.select({ email: owners.email, timeZone: owners.timeZone }).from(owners).where(inArray(owners.id, p.hostOwnerIds)) : [{ email: row.ownerEmail, timeZone: row.timeZone }];
  for (const host of hosts) {
    await sendMail(proposalToReviewMessage(host.email, { title: row.typeTitle, ownerName: null, start, end, timeZone: host.timeZone, requester, requesterLocale: p.requesterLocale }, reviewUrl(baseUrl, p.id)));
  }
}
