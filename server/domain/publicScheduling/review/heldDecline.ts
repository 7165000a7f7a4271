import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, meetingClasses, type bookingProposals } from '@/db/schema';
import type { OwnerActor } from '../../adminAudit';
import { noteFreed, type ClaimRow } from '../../claims';
import { enqueueNotification } from '../../notificationService';
import { localSpan } from '../../scheduling';

type ProposalRow = typeof bookingProposals.$inferSelect;

/** What booking.approved and booking.declined say of the held time. */
export function heldSpan(p: ProposalRow, hold: Pick<ClaimRow, 'id' | 'startAt' | 'endAt'>, ownerEmail: string, meetingClass: string, timeZone: string) {
  return { proposal_id: p.id, hold_id: hold.id, owner_email: ownerEmail, meeting_class: meetingClass, ...localSpan(hold.startAt, hold.endAt, timeZone) };
}

/**
 * A declined held booking (declineProposal, in its transaction): the hold is released, and the
 * agent told booking.declined (notification and webhook) with the owner's reason.
 */
export async function releaseDeclinedHold(tx: Executor, p: ProposalRow, reviewer: OwnerActor, reason: string | null, owner: { email: string; timeZone: string }, now: Date): Promise<void> {
  if (!p.holdId) return;
  const [hold] = await tx
    .update(claims)
    .set({ status: 'released', statusReason: reason ? `declined by the owner: ${reason}` : 'declined by the owner', updatedAt: now })
    .where(and(eq(claims.id, p.holdId), eq(claims.status, 'active')))
    .returning();
  // Run by the claim runner: the released time goes to the waitlist before COMMIT (docs/arbitration.md "Waitlist").
  if (hold) noteFreed(tx, now, [{ ownerId: hold.ownerId, start: hold.startAt, end: hold.endAt, holdId: hold.id }]);
  const [row] = hold ? [hold] : await tx.select().from(claims).where(eq(claims.id, p.holdId));
  if (!p.agentId || !row) return;
  const [mc] = await tx.select({ name: meetingClasses.name }).from(meetingClasses).where(eq(meetingClasses.id, row.meetingClassId!));
  const data = { ...heldSpan(p, row, owner.email, mc?.name ?? '', owner.timeZone), reason, declined_by: { email: reviewer.email } };
  await enqueueNotification(tx, { customerId: p.customerId, agentId: p.agentId, kind: 'booking.declined', data, now, actor: { kind: 'owner', email: reviewer.email } });
}

