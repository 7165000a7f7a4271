import { z } from 'zod';
import { approvalTimes, approvalVerdicts, approveProposal, declineProposal, getProposalForReview, listPendingProposals, reviewerTimeZone } from '@/server/domain/publicScheduling/review';
import { ownerWeek, overlayCandidates } from '@/server/domain/weekView';
import { listMeetingClasses } from '@/server/domain/meetingClassService';
import { ApprovalTimesQuery, ApprovalVerdictsQuery, ApproveProposalInput, DeclineProposalInput } from '../schemas';
import { ownerProcedure, router } from '../init';

/**
 * The signed-in owner reviews proposals made to them (public requesters and
 * agents): list what waits, approve (arbitration runs; a rejection comes back
 * as the same ARBITRATION_REJECTED the REST API answers, and the proposal
 * stays pending), or decline. Owners see and decide only their own; the
 * audit log records the owner (ctx.actor) as who approved or declined.
 */
export const proposalsRouter = router({
  listPending: ownerProcedure.query(async ({ ctx }) => {
    const db = ctx.db;
    const [proposals, time_zone] = await Promise.all([listPendingProposals(db, ctx.owner), reviewerTimeZone(db, ctx.owner)]);
    return { proposals, time_zone };
  }),

  /** One proposal of this owner, pending or decided. */
  get: ownerProcedure
    .input(z.strictObject({ proposal_id: z.string().min(1).max(64) }))
    .query(async ({ ctx, input }) => getProposalForReview(ctx.db, ctx.owner, input.proposal_id)),

  /** The review page: the proposal, the owner's week around its first time, and its candidates overlaid. */
  review: ownerProcedure
    .input(z.strictObject({ proposal_id: z.string().min(1).max(64), week: z.iso.date().optional() }))
    .query(async ({ ctx, input }) => {
      const db = ctx.db;
      const proposal = await getProposalForReview(db, ctx.owner, input.proposal_id);
      const times = proposal.candidates.length ? proposal.candidates : proposal.requested_window ? [proposal.requested_window] : [];
      const now = ctx.now();
      const first = times[0]?.start;
      const week = await ownerWeek(db, ctx.owner, input.week ?? (first ? new Date(first) : undefined), now);
      // A free-text request names no class: the owner chooses one of the customer's.
      const meeting_classes = proposal.meeting_class ? [] : (await listMeetingClasses(db, ctx.owner.customerId)).map((c) => ({ name: c.name, priority: c.priority }));
      // What approving at each time would do now (free / preempting what / refused): the panel defaults to a free one.
      const verdicts = proposal.status === 'pending_review' ? await approvalVerdicts(db, ctx.owner, { proposalId: proposal.proposal_id, times }, now) : [];
      return { proposal, week, candidates: overlayCandidates(week, times, proposal.hold_id), verdicts, meeting_classes };
    }),

  /** Free times to approve at, as arbitration would accept them now for this approval (inside the requested window, else the coming days). */
  approvalTimes: ownerProcedure
    .input(ApprovalTimesQuery)
    .query(async ({ ctx, input }) =>
      approvalTimes(ctx.db, ctx.owner, { proposalId: input.proposal_id, meetingClass: input.meeting_class, durationMinutes: input.duration_minutes }, ctx.now()),
    ),

  /** What approving at these times would do now, with the chosen class (free, preempting what, refused). */
  approvalVerdicts: ownerProcedure
    .input(ApprovalVerdictsQuery)
    .query(async ({ ctx, input }) => approvalVerdicts(ctx.db, ctx.owner, { proposalId: input.proposal_id, times: input.times, meetingClass: input.meeting_class }, ctx.now())),

  approve: ownerProcedure
    .input(ApproveProposalInput)
    .mutation(async ({ ctx, input }) =>
      approveProposal(
        ctx.db,
        ctx.actor,
        {
          proposalId: input.proposal_id,
          start: input.start ? new Date(input.start) : undefined,
          end: input.end ? new Date(input.end) : undefined,
          meetingClass: input.meeting_class,
          confirmPreemption: input.confirm_preemption,
        },
        ctx.now(),
      ),
    ),

  decline: ownerProcedure
    .input(DeclineProposalInput)
    .mutation(async ({ ctx, input }) => declineProposal(ctx.db, ctx.actor, { proposalId: input.proposal_id, reason: input.reason }, ctx.now())),
});
