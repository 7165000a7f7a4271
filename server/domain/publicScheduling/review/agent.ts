import { afterCommit } from '../../afterCommit';
import { announceForReview } from './announce';
import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { bookingProposals, owners, type ProposalStatus } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail, type AgentActor } from '../../access';
import { DEFAULT_LOOKAHEAD_HOURS, loadClaims, loadTarget, noSlotsError, ownerRules, requestPolicy, validateWindow } from '../../claims';
import { isUuid, newId } from '../../ids';
import { searchSlots } from '../../scheduling';
import { recordWebhookEvent } from '../../webhooks/outbox';
import { writeAudit } from '../../audit';
import { proposalNotFound } from './owner';

const HOUR = 3_600_000;
const DAY_MARGIN = 26 * HOUR;
/** Candidates an agent proposal offers the owner. */
const MAX_PROPOSAL_CANDIDATES = 5;

export type AgentProposalInput = {
  ownerEmail: string;
  meetingClass: string;
  durationMinutes: number;
  window: { start: Date; end: Date };
  attendees: { email: string; name?: string }[];
  message?: string;
  /** The meeting's title; the booking made on approval keeps it. */
  title?: string;
};
export type AgentProposalView = { proposal_id: string; status: ProposalStatus; candidates: { start: string; end: string }[]; booking_id?: string; warnings?: string[] };

/**
 * POST /v1/booking-proposals: instead of booking, ask the owner. Up to 5
 * candidates come from the same search as availability (so the errors are
 * the search's: NO_SLOTS_AVAILABLE with reason_code and next_available,
 * WINDOW_TOO_NARROW, PAST_TIME, CALENDAR_*, INVALID_MEETING_CLASS); the
 * proposal waits in the owner's review list, and the agent hears the outcome
 * as a proposal.reviewed notification.
 */
export async function createAgentProposal(db: Db, actor: AgentActor, input: AgentProposalInput, now: Date, baseUrl?: string): Promise<AgentProposalView> {
  const target = await loadTarget(db, actor.customerId, input, false);
  validateWindow(input.window, input.durationMinutes, now);
  const { owner } = target;
  const policy = requestPolicy(actor, target);
  const claims = await loadClaims(db, owner.id, new Date(input.window.start.getTime() - DAY_MARGIN), new Date(input.window.end.getTime() + DAY_MARGIN), now);
  const common = { rules: ownerRules(owner), claims, now: now.getTime(), durationMinutes: input.durationMinutes, request: policy };
  const result = searchSlots({ ...common, window: { start: input.window.start.getTime(), end: input.window.end.getTime() }, maxResults: MAX_PROPOSAL_CANDIDATES });
  if (result.slots.length === 0) {
    throw await noSlotsError(
      result.noSlots?.reason_code ?? 'NO_FREE_SLOTS',
      { ...common, window: input.window, lookaheadHours: DEFAULT_LOOKAHEAD_HOURS, loadClaims: (from, to) => loadClaims(db, owner.id, from, to, now) },
      result.warnings,
    );
  }
  const candidates = result.slots.map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }));
  const id = newId(now.getTime());
  await db.transaction(async (tx) => {
    await tx.insert(bookingProposals).values({
      id,
      customerId: actor.customerId,
      ownerId: owner.id,
      origin: 'agent',
      meetingClassId: target.meetingClass.id,
      agentId: actor.agentId,
      status: 'pending_review',
      attendees: input.attendees.map((a) => ({ email: normalizeEmail(a.email), ...(a.name ? { name: a.name } : {}) })),
      durationMinutes: input.durationMinutes,
      requestedStart: input.window.start,
      requestedEnd: input.window.end,
      candidates,
      message: input.message ?? null,
      title: input.title ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await writeAudit(tx, {
      customerId: actor.customerId,
      agentId: actor.agentId,
      ownerId: owner.id,
      ownerEmail: owner.email,
      action: 'proposal.create',
      outcome: 'accept',
      meetingClass: target.meetingClass.name,
      start: input.window.start,
      end: input.window.end,
      details: { proposal_id: id, proposal_origin: 'agent', candidates },
      at: now,
    });
    // proposal.created for the agent's webhook endpoints, committed with the proposal (docs/webhooks.md).
    await recordWebhookEvent(tx, { agentId: actor.agentId, kind: 'proposal.created', now, actor: { kind: 'agent', agentId: actor.agentId }, data: { proposal_id: id, status: 'pending_review', owner_email: owner.email, candidates } });
  });
  // Mailed once the proposal committed (the REST wrapper's transaction included: ../../afterCommit.ts).
  if (baseUrl) await afterCommit(db, (db) => announceForReview(db, id, baseUrl));
  const view: AgentProposalView = { proposal_id: id, status: 'pending_review', candidates };
  if (result.warnings.length) view.warnings = result.warnings;
  return view;
}

/** GET /v1/booking-proposals/{id}: an agent proposal of this customer whose owner the agent's scope covers. */
export async function getAgentProposal(db: Db, actor: AgentActor, proposalId: string): Promise<AgentProposalView> {
  if (!isUuid(proposalId)) throw proposalNotFound();
  const [found] = await db
    .select({ p: bookingProposals, ownerEmail: owners.email })
    .from(bookingProposals)
    .innerJoin(owners, eq(owners.id, bookingProposals.ownerId))
    .where(and(eq(bookingProposals.id, proposalId.toLowerCase()), eq(bookingProposals.customerId, actor.customerId), eq(bookingProposals.origin, 'agent')))
    .limit(1);
  if (!found) throw proposalNotFound();
  assertOwnerInScope(actor, found.ownerEmail);
  const view: AgentProposalView = { proposal_id: found.p.id, status: found.p.status, candidates: found.p.candidates };
  if (found.p.bookingId) view.booking_id = found.p.bookingId;
  return view;
}
