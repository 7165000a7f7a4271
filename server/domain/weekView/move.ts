import type { Db } from '@/db/client';
import type { OwnerActor } from '../adminAudit';
import { bookingOwner, GateRefusal, rescheduleClaim, runClaimOperation, type Mover } from '../claims';
import { approvalDecision, requireConfirmedPreemption } from '../publicScheduling/review/approvalRules';
import { claimDetails, type ClaimDetails } from './details';

/**
 * The owner moves one of their confirmed bookings from its details in the dashboard
 * (docs/dashboard.md "Calendar"): the same reschedule an agent makes (docs/api.md
 * "Reschedule"; claims/rescheduleService.ts), through the claim runner on the owner's queue
 * and calendar gate, with the owner's authority as for an approval: what would give way is
 * moved aside only when the owner confirmed exactly it (`confirmPreemption`, as on the
 * review page; otherwise 409 PREEMPTION_NOT_CONFIRMED with `displaced`). The booking's agent
 * hears of it (booking.rescheduled), the attendees get the update; audited by the owner.
 */
export async function moveOwnBooking(
  db: Db,
  owner: OwnerActor,
  input: { bookingId: string; start: Date; end: Date; reason?: string | null; confirmPreemption?: string[] },
  now: Date,
): Promise<ClaimDetails> {
  const mover: Mover = {
    kind: 'owner',
    customerId: owner.customerId,
    ownerId: owner.ownerId,
    email: owner.email,
    confirmPreemption: async (tx, around, target, policy, start, end) =>
      requireConfirmedPreemption(tx, approvalDecision(target.owner, policy, { start, end }, around, now).ids, input.confirmPreemption),
  };
  const named = await bookingOwner(db, mover, input.bookingId);
  await runClaimOperation(db, rescheduleClaim(mover, named, input.bookingId, { start: input.start, end: input.end, reason: input.reason?.trim() || null }, now, null), {
    owner: { customerId: named.customerId, email: named.email },
    now,
  }).catch((err: unknown) => {
    throw err instanceof GateRefusal ? err.refusal : err;
  });
  return claimDetails(db, owner, input.bookingId.toLowerCase(), now);
}
