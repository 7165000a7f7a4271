import { assertOwnerInScope, parseOwnerScope, resolveOwnerEmail } from '@/server/domain/access';
import { addApprovalPolicy, listApprovalPolicies, removeApprovalPolicy } from '@/server/domain/approvals/policyService';
import { defineOperation } from '../operation';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/approvals';

/**
 * Approval policies (docs/api.md "Approval policies"): which agents' or meeting classes'
 * bookings on an owner wait for that owner's approval. Administration: manage_customer.
 */

export const listApprovalPoliciesOp = defineOperation({
  operationId: 'listApprovalPolicies',
  method: 'GET',
  path: '/v1/approval-policies',
  summary: "The owners' approval rules for agent bookings (one owner's with owner_email)",
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  query: S.ApprovalPolicyQuery,
  success: { status: 200, description: 'Every rule, by owner then creation', schema: S.ApprovalPolicyList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query }) => {
    // An org:* agent reads every owner's rules (or one's); a user-scoped agent only its owner's.
    const scoped = Boolean(query.owner_email) || parseOwnerScope(actor.ownerScope)?.kind === 'user';
    const ownerEmail = scoped ? resolveOwnerEmail(actor, query.owner_email) : undefined;
    return { body: { approval_policies: await listApprovalPolicies(db, actor.customerId, { ownerEmail }) } };
  },
});

export const createApprovalPolicyOp = defineOperation({
  operationId: 'createApprovalPolicy',
  method: 'POST',
  path: '/v1/approval-policies',
  summary: "Require the owner's approval for an agent's bookings, a meeting class's, or that agent's of that class",
  description:
    'A booking (POST /v1/bookings) a rule covers answers 202 with status pending_approval and a hold on the time; ' +
    'the request waits in the owner\'s inbox, and the booking agent hears booking.approved or booking.declined.',
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  body: S.ApprovalPolicyCreateBody,
  success: { status: 201, description: 'The new rule', schema: S.ApprovalPolicy },
  errors: ['APPROVAL_POLICY_EXISTS', 'OWNER_NOT_FOUND', 'AGENT_NOT_FOUND', 'INVALID_MEETING_CLASS', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => {
    assertOwnerInScope(actor, body.owner_email);
    return { body: await addApprovalPolicy(db, actor.customerId, actor, { ownerEmail: body.owner_email, agentId: body.agent_id, meetingClass: body.meeting_class }, now) };
  },
});

export const deleteApprovalPolicyOp = defineOperation({
  operationId: 'deleteApprovalPolicy',
  method: 'DELETE',
  path: '/v1/approval-policies/{id}',
  summary: 'Remove an approval rule (requests already waiting stay in the inbox)',
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  params: IdParams,
  success: { status: 200, description: 'The removed rule', schema: S.ApprovalPolicy },
  errors: ['APPROVAL_POLICY_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await removeApprovalPolicy(db, actor.customerId, actor, params.id, now, { inScope: (ownerEmail) => assertOwnerInScope(actor, ownerEmail) }) }),
});
