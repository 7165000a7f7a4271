import { deleteApprovalPolicyOp } from '@/server/http/operations/approvals';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ DELETE: deleteApprovalPolicyOp });
