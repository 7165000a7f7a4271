import { z } from 'zod';
import { addApprovalPolicy, listApprovalPolicies, removeApprovalPolicy } from '@/server/domain/approvals/policyService';
import { listAgents } from '@/server/domain/agentService';
import { listMeetingClasses } from '@/server/domain/meetingClassService';
import { OwnApprovalRuleInput } from '@/server/schemas/approvals';
import { ownerProcedure, router } from '../init';

/**
 * The signed-in owner's approval policy for agent bookings on their own calendar (docs/dashboard.md
 * "Approval rules"): the same domain calls as /v1/approval-policies, with the owner as the audit actor.
 */
export const approvalsRouter = router({
  /** The owner's rules, and what a rule can name (the customer's agents and meeting classes). */
  list: ownerProcedure.query(async ({ ctx }) => {
    const [rules, agents, classes] = await Promise.all([
      listApprovalPolicies(ctx.db, ctx.owner.customerId, { ownerEmail: ctx.owner.email }),
      listAgents(ctx.db, ctx.owner.customerId),
      listMeetingClasses(ctx.db, ctx.owner.customerId),
    ]);
    return {
      rules,
      agents: agents.map((a) => ({ agent_id: a.agent_id, name: a.name })),
      meeting_classes: classes.map((c) => ({ name: c.name, priority: c.priority })),
    };
  }),
  add: ownerProcedure
    .input(OwnApprovalRuleInput)
    .mutation(async ({ ctx, input }) => addApprovalPolicy(ctx.db, ctx.owner.customerId, ctx.actor, { ownerEmail: ctx.owner.email, agentId: input.agent_id, meetingClass: input.meeting_class }, ctx.now())),
  remove: ownerProcedure
    .input(z.strictObject({ policy_id: z.string().min(1).max(64) }))
    .mutation(async ({ ctx, input }) => removeApprovalPolicy(ctx.db, ctx.owner.customerId, ctx.actor, input.policy_id, ctx.now(), { ownerId: ctx.owner.ownerId })),
});
