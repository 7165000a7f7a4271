import { createApprovalPolicyOp, listApprovalPoliciesOp } from '@/server/http/operations/approvals';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listApprovalPoliciesOp, POST: createApprovalPolicyOp });
