import { getAgentProposalOp } from '@/server/http/operations/proposals';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: getAgentProposalOp });
