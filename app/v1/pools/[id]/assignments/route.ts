import { poolAssignmentsOp } from '@/server/http/operations/pools';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: poolAssignmentsOp });
