import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { claims, owners, publicMeetingTypes, type ProposalStatus } from '@/db/schema';
import { MAX_PUBLIC_ATTENDEES } from './submit';
import { proposalRowByToken, PENDING_STATUSES, statusView, type PublicStatusView } from './status';
import { expireLapsed } from '../review/expiry';
import type { PublicTypeContext } from './schedule';

/**
 * What the public booking pages show beyond the JSON API's bodies: the
 * requester's own request in words. Never an internal id, the owner's
 * email or rules; only the owner's display name, the type's title, the
 * requested (or, once booked, the booked) time, and the owner's decline
 * reason, which the decision mail carries as well.
 */
export type PublicProposalPage = PublicStatusView & {
  title: string | null;
  owner_name: string | null;
  /** The booked time once booked, else the requested time (null for a free-text request without one). */
  start: string | null;
  end: string | null;
  withdrawable: boolean;
  decline_reason: string | null;
};

/** The status page of a proposal token (a lapsed unverified proposal reads, and becomes, expired). */
export async function proposalStatusPage(db: Db, token: string, now: Date): Promise<PublicProposalPage> {
  const p = await expireLapsed(db, await proposalRowByToken(db, token), now);
  const [owner] = await db.select({ name: owners.name }).from(owners).where(eq(owners.id, p.ownerId));
  const [type] = p.meetingTypeId ? await db.select({ title: publicMeetingTypes.title }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  let start = p.requestedStart;
  let end = p.requestedEnd;
  if (p.status === 'booked' && p.bookingId) {
    const [booking] = await db.select({ start: claims.startAt, end: claims.endAt }).from(claims).where(eq(claims.id, p.bookingId));
    if (booking) ({ start, end } = booking);
  }
  return {
    ...statusView(p),
    title: type?.title ?? null,
    owner_name: owner?.name ?? null,
    start: start?.toISOString() ?? null,
    end: end?.toISOString() ?? null,
    withdrawable: (PENDING_STATUSES as readonly ProposalStatus[]).includes(p.status),
    decline_reason: p.status === 'declined' ? p.declineReason : null,
  };
}

/** A meeting type as its public page shows it. */
export type PublicMeetingTypePage = {
  link_title: string | null;
  owner_name: string | null;
  slug: string;
  title: string;
  duration_minutes: number[];
  /** People who may attend, the requester included. */
  attendee_limit: number;
};

export function meetingTypePage(ctx: PublicTypeContext): PublicMeetingTypePage {
  const t = ctx.type.type;
  return {
    link_title: ctx.link.link.title,
    owner_name: ctx.link.owner.name,
    slug: t.slug,
    title: t.title,
    duration_minutes: t.durationMinutes,
    attendee_limit: Math.min(MAX_PUBLIC_ATTENDEES, t.attendeeLimit ?? MAX_PUBLIC_ATTENDEES),
  };
}
