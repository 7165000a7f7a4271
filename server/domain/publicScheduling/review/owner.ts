import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingProposals, meetingClasses, publicMeetingTypes } from '@/db/schema';
import { DomainError } from '../../errors';
import { isUuid } from '../../ids';

export type ProposalRow = typeof bookingProposals.$inferSelect;

/** The owner reviewing: their own proposals only (the dashboard session). */
export type Reviewer = { ownerId: string; customerId: string };

export function proposalNotFound(): DomainError {
  return new DomainError('PROPOSAL_NOT_FOUND', 'Booking proposal not found');
}

/** A proposal of this owner (optionally locked); anything else is PROPOSAL_NOT_FOUND. */
export async function findOwnProposal(db: Executor, reviewer: Reviewer, proposalId: string, lock = false): Promise<ProposalRow> {
  if (!isUuid(proposalId)) throw proposalNotFound();
  const q = db
    .select()
    .from(bookingProposals)
    .where(and(eq(bookingProposals.id, proposalId.toLowerCase()), eq(bookingProposals.customerId, reviewer.customerId), eq(bookingProposals.ownerId, reviewer.ownerId)))
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
  attendees: { email: string; name?: string }[];
  reason: string | null;
  message: string | null;
};

/** Proposals waiting for this owner's decision (pending_review), oldest first, at most 200. */
export async function listPendingProposals(db: Executor, reviewer: Reviewer): Promise<PendingProposalView[]> {
  const rows = await db
    .select({ p: bookingProposals, typeSlug: publicMeetingTypes.slug, typeTitle: publicMeetingTypes.title, className: meetingClasses.name })
    .from(bookingProposals)
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, bookingProposals.meetingClassId))
    .where(and(eq(bookingProposals.customerId, reviewer.customerId), eq(bookingProposals.ownerId, reviewer.ownerId), eq(bookingProposals.status, 'pending_review')))
    .orderBy(asc(bookingProposals.createdAt), asc(bookingProposals.id))
    .limit(200);
  return rows.map(({ p, typeSlug, typeTitle, className }) => ({
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
    attendees: p.attendees,
    reason: p.reason,
    message: p.message,
  }));
}
