import { eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingProposals, owners, type AuditAction } from '@/db/schema';
import { writeAudit, type AuditActor, type AuditOutcome } from '../../audit';

type ProposalRow = typeof bookingProposals.$inferSelect;

/** What a proposal's audit rows say about it (never its tokens, message or attendees). */
export function proposalFacts(p: ProposalRow): Record<string, unknown> {
  return {
    proposal_id: p.id,
    proposal_origin: p.origin,
    ...(p.agentId ? { proposal_agent_id: p.agentId } : {}),
    ...(p.linkId ? { link_id: p.linkId } : {}),
    ...(p.meetingTypeId ? { meeting_type_id: p.meetingTypeId } : {}),
    ...(p.requesterIdentityId ? { requester_identity_id: p.requesterIdentityId } : {}),
    ...(p.movesBookingId ? { moves_booking_id: p.movesBookingId } : {}),
    ...(p.holdId ? { hold_id: p.holdId } : {}),
  };
}

/** The public requester of a proposal as an audit actor (the contact email they gave). */
export function requesterActor(p: ProposalRow): AuditActor {
  return p.requesterEmail ? { kind: 'requester', email: p.requesterEmail } : { kind: 'system' };
}

/**
 * One audit row of a proposal event (submitted, contact verified, withdrawn, declined,
 * expired) about the proposal's owner, in the caller's transaction (docs/reliability.md,
 * "Audit actors").
 */
export async function writeProposalAudit(
  tx: Executor,
  p: ProposalRow,
  event: { action: AuditAction; actor: AuditActor; outcome?: AuditOutcome; reason?: string | null; ownerEmail?: string; at: Date },
): Promise<void> {
  const ownerEmail = event.ownerEmail ?? (await tx.select({ email: owners.email }).from(owners).where(eq(owners.id, p.ownerId)))[0]?.email ?? null;
  await writeAudit(tx, {
    customerId: p.customerId,
    agentId: null,
    actor: event.actor,
    ownerId: p.ownerId,
    ownerEmail,
    action: event.action,
    outcome: event.outcome ?? 'accept',
    reason: event.reason ?? null,
    start: p.requestedStart,
    end: p.requestedEnd,
    details: proposalFacts(p),
    at: event.at,
  });
}
