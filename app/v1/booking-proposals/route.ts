import { createAgentProposalOp } from '@/server/http/operations/proposals';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ POST: createAgentProposalOp });
