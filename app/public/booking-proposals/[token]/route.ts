import { proposalStatusOp } from '@/server/http/operations/public';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: proposalStatusOp });
