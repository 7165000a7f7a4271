import { z } from 'zod';
import { Email, Timestamp } from './common';

/** An owner's approval policy for agent writes (docs/api.md "Approval policies"). */

export const ApprovalPolicyCreateBody = z
  .strictObject({
    owner_email: Email.describe('The owner whose calendar the rule protects'),
    agent_id: z.string().min(1).max(64).optional().describe("This agent's bookings need approval (with meeting_class: only that class's)"),
    meeting_class: z.string().min(1).max(100).optional().describe("Bookings of this class need approval (with agent_id: only that agent's)"),
  })
  .refine((b) => b.agent_id !== undefined || b.meeting_class !== undefined, { message: 'name an agent, a meeting class, or both', path: ['agent_id'] });

export const ApprovalPolicyQuery = z.strictObject({ owner_email: Email.optional().describe("One owner's rules") });

export const ApprovalPolicy = z
  .object({
    policy_id: z.string(),
    owner_email: z.string(),
    agent_id: z.string().nullable().describe('null: every agent (of meeting_class)'),
    agent_name: z.string().nullable(),
    meeting_class: z.string().nullable().describe('null: every class (of agent_id)'),
    created_at: Timestamp,
  })
  .meta({ id: 'ApprovalPolicy' });
export const ApprovalPolicyList = z.object({ approval_policies: z.array(ApprovalPolicy) });

/** The dashboard's form for a rule on the signed-in owner's own calendar ('' in a select: any). */
export const OwnApprovalRuleForm = z
  .strictObject({ agent_id: z.string().max(64), meeting_class: z.string().max(100) })
  .refine((b) => b.agent_id !== '' || b.meeting_class !== '', { message: 'Choose an agent, a meeting class, or both', path: ['agent_id'] });

/** The same rule as tRPC approvals.add takes it. */
export const OwnApprovalRuleInput = z
  .strictObject({ agent_id: z.string().min(1).max(64).optional(), meeting_class: z.string().min(1).max(100).optional() })
  .refine((b) => b.agent_id !== undefined || b.meeting_class !== undefined, { message: 'Choose an agent, a meeting class, or both', path: ['agent_id'] });
