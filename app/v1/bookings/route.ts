import { createBookingOp } from '@/server/http/operations/scheduling';
import { listBookingsOp } from '@/server/http/operations/schedulingLists';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listBookingsOp, POST: createBookingOp });
