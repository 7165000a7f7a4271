import { createHoldOp } from '@/server/http/operations/scheduling';
import { listHoldsOp } from '@/server/http/operations/schedulingLists';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listHoldsOp, POST: createHoldOp });
