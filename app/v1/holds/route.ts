import { createHoldOp, listHoldsOp } from '@/server/http/operations/scheduling';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listHoldsOp, POST: createHoldOp });
