import type { Db } from '@/db/client';
import type { OwnerActor } from '../../adminAudit';
import { approveCollective } from './collectiveApproval';
import { approveHeld } from './heldApproval';
import { approveMove, approveSingle, proposalOwner, type ApproveInput, type ReviewResult } from './reviewDecision';

/**
 * The owner approves a proposal (docs/public-scheduling.md "Review"): a request to move a booked
 * meeting moves it in place ("Asking to move"), a collective type's proposal books every host at
 * once through the group claim path ("Several hosts"), an agent's booking an approval policy held promotes
 * its hold (heldApproval.ts, docs/api.md "Approval policies"), anything else books the owner
 * (reviewDecision.ts approveSingle). Apart from reviewDecision.ts so that collectiveApproval.ts,
 * which builds on its helpers, is not imported by it.
 */
export async function approveProposal(db: Db, reviewer: OwnerActor, input: ApproveInput, now: Date): Promise<ReviewResult> {
  const named = await proposalOwner(db, reviewer, input.proposalId);
  if (named.movesBookingId) return approveMove(db, reviewer, input, named.movesBookingId, now);
  if (named.holdId) return approveHeld(db, reviewer, input, named, now);
  if (named.hostEmails) return approveCollective(db, reviewer, input, { customerId: named.customerId, emails: named.hostEmails }, now);
  return approveSingle(db, reviewer, input, named, now);
}
