import { asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { claims, owners, publicMeetingTypes, type ProposalStatus } from '@/db/schema';
import { proposalRowByToken, PENDING_STATUSES, statusView, type PublicStatusView } from './status';
import { expireLapsed } from '../review/expiry';
import type { PublicTypeContext } from './schedule';
import { actingBooking, requesterMayCancel } from './meeting';
import { latestMoveRequest, moveRequestView, type MoveRequestView } from './move';
import { videoLinkOf, videoLinkView, type VideoLinkView } from '../../calendars/videoLinks';
import { weeklySlots } from '../repeatWeekly';

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
  /** Once booked (and still on): the meeting type's address or video link, else null. */
  location: string | null;
  /** Once booked: the meeting's video link (docs/calendars.md "Video links"): pending while the owner's calendar makes it, ready with its join_url, failed, or removed once the meeting is off; null without one. */
  video: VideoLinkView | null;
  /** A booked meeting that has not started: "Add to calendar" and "Cancel this meeting" are offered. */
  cancellable: boolean;
  /** The meeting was booked and is off now: cancelled by the requester (status cancelled), or by the owner or a preemption (status still booked). */
  meeting_cancelled: boolean;
  /** "Ask to move" is offered: cancellable, its meeting type still offered, and no request to move waiting (docs/public-scheduling.md "Asking to move"). */
  movable: boolean;
  /** The latest request to move this meeting (waiting, declined, or done), or null. */
  move_request: MoveRequestView | null;
  /** Its meeting type books at once when the time is free (docs/public-scheduling.md "Booking instantly"): the page speaks of a booking, not of an owner accepting. */
  books_instantly: boolean;
  /**
   * "Repeat weekly" (docs/public-scheduling.md "Repeating weekly"): every meeting of the series,
   * oldest first: once booked the series' bookings (`cancelled` when that one is off), before
   * that the weeks asked for. Null: one meeting.
   */
  weeks: { start: string; end: string; cancelled: boolean }[] | null;
};

/** The meetings of a weekly request: its series' bookings once booked, else the weeks it asks for (in the host's zone). */
async function weeksOf(db: Db, p: { repeatWeeks: number | null; requestedStart: Date | null; requestedEnd: Date | null }, seriesId: string | null, timeZone: string | undefined): Promise<PublicProposalPage['weeks']> {
  if (seriesId) {
    const rows = await db.select({ start: claims.startAt, end: claims.endAt, status: claims.status }).from(claims).where(eq(claims.seriesId, seriesId)).orderBy(asc(claims.startAt));
    return rows.map((r) => ({ start: r.start.toISOString(), end: r.end.toISOString(), cancelled: r.status !== 'confirmed' }));
  }
  if (!p.repeatWeeks || !p.requestedStart || !p.requestedEnd || !timeZone) return null;
  return weeklySlots({ start: p.requestedStart, end: p.requestedEnd }, p.repeatWeeks, timeZone).map((w) => ({ start: w.start.toISOString(), end: w.end.toISOString(), cancelled: false }));
}

/** The status page of a proposal token (a lapsed unverified proposal reads, and becomes, expired). */
export async function proposalStatusPage(db: Db, token: string, now: Date): Promise<PublicProposalPage> {
  const p = await expireLapsed(db, await proposalRowByToken(db, token), now);
  const [owner] = await db.select({ name: owners.name, timeZone: owners.timeZone }).from(owners).where(eq(owners.id, p.ownerId));
  // A collective request: every host by name (docs/public-scheduling.md "Several hosts").
  const hosts = p.hostOwnerIds?.length ? await db.select({ id: owners.id, name: owners.name }).from(owners).where(inArray(owners.id, p.hostOwnerIds)) : [];
  const hostNames = p.hostOwnerIds?.flatMap((id) => hosts.find((h) => h.id === id)?.name ?? []) ?? [];
  const [type] = p.meetingTypeId
    ? await db.select({ title: publicMeetingTypes.title, location: publicMeetingTypes.location, bookInstantly: publicMeetingTypes.bookInstantly, enabled: publicMeetingTypes.enabled, published: publicMeetingTypes.published }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId))
    : [];
  let start = p.requestedStart;
  let end = p.requestedEnd;
  // The meeting the page shows and acts on: for a weekly series, its next week (actingBooking).
  const acting = p.status === 'booked' ? await actingBooking(db, p, now) : null;
  const [booking] = acting
    ? [{ id: acting.id, start: acting.startAt, end: acting.endAt, status: acting.status, seriesId: acting.seriesId }]
    : p.status === 'cancelled' && p.bookingId
      ? await db.select({ id: claims.id, start: claims.startAt, end: claims.endAt, status: claims.status, seriesId: claims.seriesId }).from(claims).where(eq(claims.id, p.bookingId))
      : [];
  if (booking) ({ start, end } = booking);
  const on = p.status === 'booked' && booking?.status === 'confirmed';
  const cancellable = on && booking ? requesterMayCancel(p, { status: booking.status, startAt: booking.start }, now) : false;
  const move = on && booking ? await latestMoveRequest(db, booking.id) : null;
  const link = booking ? await videoLinkOf(db, booking.id) : null;
  return {
    ...statusView(p),
    title: type?.title ?? null,
    owner_name: hostNames.length ? namesInWords(hostNames) : (owner?.name ?? null),
    start: start?.toISOString() ?? null,
    end: end?.toISOString() ?? null,
    withdrawable: (PENDING_STATUSES as readonly ProposalStatus[]).includes(p.status),
    decline_reason: p.status === 'declined' ? p.declineReason : null,
    location: on ? (type?.location ?? null) : null,
    video: link ? videoLinkView(link, on) : null,
    cancellable,
    meeting_cancelled: p.status === 'cancelled' || (p.status === 'booked' && booking !== undefined && booking.status !== 'confirmed'),
    movable: cancellable && Boolean(type?.enabled && type.published) && move?.status !== 'pending_review',
    move_request: move ? moveRequestView(move) : null,
    books_instantly: type?.bookInstantly ?? false,
    weeks: await weeksOf(db, p, booking?.seriesId ?? null, owner?.timeZone),
  };
}

/** A meeting type as its public page shows it. */
export type PublicMeetingTypePage = {
  link_title: string | null;
  owner_name: string | null;
  slug: string;
  title: string;
  duration_minutes: number[];
  /** The type's own limit on people, the requester included; null: none of its own (only the 50 `attendees` items of any proposal). */
  attendee_limit: number | null;
  /** The owner's words about the meeting, shown before booking (the location is not: only once booked). */
  description: string | null;
  /** A free time is booked once the requester confirms their email, without the owner's review (docs/public-scheduling.md "Booking instantly"). */
  books_instantly: boolean;
  /** "Repeat weekly for N weeks" is offered, up to this many weeks (docs/public-scheduling.md "Repeating weekly"); null: not offered. */
  repeat_weekly_max_weeks: number | null;
  /** A collective type: every named host meets the requester, and any one of them decides (docs/public-scheduling.md "Several hosts"). */
  several_hosts: boolean;
};

/** "Ada", "Ada and Bo", "Ada, Bo and Cy". */
function namesInWords(names: string[]): string | null {
  if (!names.length) return null;
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * Who the requester meets, by display name (docs/public-scheduling.md "Several hosts"): the
 * link's owner; every named host of a collective type; nobody in particular for a pool (the
 * pool picks at submission).
 */
function hostNames(ctx: PublicTypeContext): string | null {
  const t = ctx.type.type;
  if (t.hostMode === 'collective') return namesInWords((ctx.type.hostNames ?? []).filter((n): n is string => Boolean(n)));
  if (t.hostMode === 'pool') return null;
  return ctx.link.owner.name;
}

export function meetingTypePage(ctx: PublicTypeContext): PublicMeetingTypePage {
  const t = ctx.type.type;
  return {
    link_title: ctx.link.link.title,
    owner_name: hostNames(ctx),
    slug: t.slug,
    title: t.title,
    duration_minutes: t.durationMinutes,
    attendee_limit: t.attendeeLimit,
    description: t.description,
    books_instantly: t.bookInstantly,
    repeat_weekly_max_weeks: t.hostMode === 'single' ? t.repeatWeeklyMaxWeeks : null,
    several_hosts: t.hostMode === 'collective',
  };
}
