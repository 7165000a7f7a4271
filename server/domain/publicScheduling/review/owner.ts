import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, bookingProposals, claims, meetingClasses, owners, publicMeetingTypes } from '@/db/schema';
import { DomainError } from '../../errors';
import { isUuid } from '../../ids';
import { approvalTitle } from './approvalRules';

export type ProposalRow = typeof bookingProposals.$inferSelect;

/** The owner reviewing: their own proposals only (the dashboard session). */
export type Reviewer = { ownerId: string; customerId: string };

export function proposalNotFound(): DomainError {
  return new DomainError('PROPOSAL_NOT_FOUND', 'Booking proposal not found');
}

/**
 * The proposals in this owner's inbox: made to them, or to a collective public type they host
 * (docs/public-scheduling.md "Several hosts": every host sees it, any of them decides).
 */
export function inInbox(ownerId: string): SQL {
  return or(eq(bookingProposals.ownerId, ownerId), sql`${bookingProposals.hostOwnerIds} @> array[${ownerId}]::uuid[]`)!;
}

/** A proposal of this owner (optionally locked); anything else is PROPOSAL_NOT_FOUND. */
export async function findOwnProposal(db: Executor, reviewer: Reviewer, proposalId: string, lock = false): Promise<ProposalRow> {
  if (!isUuid(proposalId)) throw proposalNotFound();
  const q = db
    .select()
    .from(bookingProposals)
    .where(and(eq(bookingProposals.id, proposalId.toLowerCase()), eq(bookingProposals.customerId, reviewer.customerId), inInbox(reviewer.ownerId)))
    .limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw proposalNotFound();
  return row;
}

const iso = (d: Date) => d.toISOString();

export type PendingProposalView = {
  proposal_id: string;
  origin: 'public' | 'agent';
  status: ProposalRow['status'];
  created_at: string;
  meeting_type: { slug: string; title: string } | null;
  meeting_class: string | null;
  duration_minutes: number | null;
  /** Public: the exact time asked for. Agent: the window its candidates came from. */
  requested_window: { start: string; end: string } | null;
  candidates: { start: string; end: string }[];
  requester: { email: string; name: string | null } | null;
  agent_id: string | null;
  agent_name: string | null;
  attendees: { email: string; name?: string }[];
  reason: string | null;
  message: string | null;
  /** A collective public type's hosts, in order (every one is booked on approval; docs/public-scheduling.md "Several hosts"); else empty. */
  hosts: { email: string; name: string | null }[];
  /** The title the booking made on approval takes (approvalTitle: the agent's, else the type's with the requester, ...). */
  title: string;
  /**
   * A requester's request to move a booked meeting (docs/public-scheduling.md "Asking to move"):
   * the booking and its current time; `requested_window` is the new time. Approving moves it in place.
   */
  moves: { booking_id: string; title: string | null; start: string; end: string } | null;
  /** An agent's booking an approval policy held (docs/api.md "Approval policies"): the hold on its time; approving books exactly it. */
  hold_id: string | null;
  /** "Repeat weekly" (docs/public-scheduling.md "Repeating weekly"): approving books this many weekly meetings from the time, all or none; null: one meeting. */
  repeat_weeks: number | null;
};

function reviewQuery(db: Executor) {
  return db
    .select({
      p: bookingProposals,
      typeSlug: publicMeetingTypes.slug,
      typeTitle: publicMeetingTypes.title,
      className: meetingClasses.name,
      agentName: agents.name,
      moving: { id: claims.id, title: claims.title, start: claims.startAt, end: claims.endAt },
    })
    .from(bookingProposals)
    .leftJoin(claims, eq(claims.id, bookingProposals.movesBookingId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, bookingProposals.meetingClassId))
    .leftJoin(agents, eq(agents.id, bookingProposals.agentId));
}

type ReviewRow = {
  p: ProposalRow;
  typeSlug: string | null;
  typeTitle: string | null;
  className: string | null;
  agentName: string | null;
  moving: { id: string; title: string | null; start: Date; end: Date } | null;
};

type HostNames = Map<string, { email: string; name: string | null }>;

/** The hosts of the collective proposals among `rows`, by owner id (one statement). */
async function hostsOf(db: Executor, rows: { p: ProposalRow }[]): Promise<HostNames> {
  const ids = [...new Set(rows.flatMap((r) => r.p.hostOwnerIds ?? []))];
  if (!ids.length) return new Map();
  const found = await db.select({ id: owners.id, email: owners.email, name: owners.name }).from(owners).where(inArray(owners.id, ids));
  return new Map(found.map((o) => [o.id, { email: o.email, name: o.name }]));
}

function toView({ p, typeSlug, typeTitle, className, agentName, moving }: ReviewRow, hosts: HostNames = new Map()): PendingProposalView {
  return {
    hosts: (p.hostOwnerIds ?? []).flatMap((id) => hosts.get(id) ?? []),
    proposal_id: p.id,
    origin: p.origin,
    status: p.status,
    created_at: iso(p.createdAt),
    meeting_type: typeSlug && typeTitle ? { slug: typeSlug, title: typeTitle } : null,
    meeting_class: className,
    duration_minutes: p.durationMinutes,
    requested_window: p.requestedStart && p.requestedEnd ? { start: iso(p.requestedStart), end: iso(p.requestedEnd) } : null,
    candidates: p.candidates,
    requester: p.requesterEmail ? { email: p.requesterEmail, name: p.requesterName } : null,
    agent_id: p.agentId,
    agent_name: agentName,
    attendees: p.attendees,
    reason: p.reason,
    message: p.message,
    title: moving?.title ?? approvalTitle(p, typeTitle, className),
    hold_id: p.holdId,
    repeat_weeks: p.repeatWeeks,
    moves: moving ? { booking_id: moving.id, title: moving.title, start: iso(moving.start), end: iso(moving.end) } : null,
  };
}

/** Proposals waiting for this owner's decision (pending_review), newest first, at most 200. */
export async function listPendingProposals(db: Executor, reviewer: Reviewer): Promise<PendingProposalView[]> {
  const rows = await reviewQuery(db)
    .where(and(eq(bookingProposals.customerId, reviewer.customerId), inInbox(reviewer.ownerId), eq(bookingProposals.status, 'pending_review')))
    .orderBy(desc(bookingProposals.createdAt), desc(bookingProposals.id))
    .limit(200);
  const hosts = await hostsOf(db, rows);
  return rows.map((r) => toView(r, hosts));
}

/** One proposal of this owner, whatever its status (the review page shows decided ones too). */
export async function getProposalForReview(db: Executor, reviewer: Reviewer, proposalId: string): Promise<PendingProposalView & { booking_id: string | null; decline_reason: string | null }> {
  const own = await findOwnProposal(db, reviewer, proposalId);
  const [row] = await reviewQuery(db).where(eq(bookingProposals.id, own.id)).limit(1);
  return { ...toView(row, await hostsOf(db, [row])), booking_id: row.p.bookingId, decline_reason: row.p.declineReason };
}

/** The reviewing owner's IANA time zone (the dashboard shows times in it). */
export async function reviewerTimeZone(db: Executor, reviewer: Reviewer): Promise<string> {
  const [o] = await db.select({ tz: owners.timeZone }).from(owners).where(and(eq(owners.id, reviewer.ownerId), eq(owners.customerId, reviewer.customerId))).limit(1);
  return o?.tz ?? 'UTC';
}
