import { z } from 'zod';
import { approveProposal, declineProposal, listPendingProposals } from '@/server/domain/publicScheduling/review';
import { UtcDateTime } from '@/server/schemas/common';
import { ownerProcedure, router } from '../init';

/**
 * The signed-in owner reviews proposals made to them (public requesters and
 * agents): list what waits, approve (arbitration runs; a rejection comes back
 * as the same ARBITRATION_REJECTED the REST API answers, and the proposal
 * stays pending), or decline. Owners see and decide only their own.
 */
export const proposalsRouter = router({
  listPending: ownerProcedure.query(async ({ ctx }) => ({ proposals: await listPendingProposals(ctx.db, ctx.owner) })),

  approve: ownerProcedure
    .input(
      z.strictObject({
        proposal_id: z.string().min(1).max(64),
        start: UtcDateTime.optional().describe('Default: the requested time, else the first candidate'),
        end: UtcDateTime.optional(),
        meeting_class: z.string().min(1).max(100).optional().describe("Default: the proposal's; required for a free-text request"),
      }),
    )
    .mutation(async ({ ctx, input }) =>
      approveProposal(
        ctx.db,
        ctx.owner,
        {
          proposalId: input.proposal_id,
          start: input.start ? new Date(input.start) : undefined,
          end: input.end ? new Date(input.end) : undefined,
          meetingClass: input.meeting_class,
        },
        ctx.now(),
      ),
    ),

  decline: ownerProcedure
    .input(z.strictObject({ proposal_id: z.string().min(1).max(64), reason: z.string().max(1000).optional() }))
    .mutation(async ({ ctx, input }) => declineProposal(ctx.db, ctx.owner, { proposalId: input.proposal_id, reason: input.reason }, ctx.now())),
});
