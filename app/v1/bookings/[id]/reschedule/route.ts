import { rescheduleBookingOp } from '@/server/http/operations/scheduling';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ POST: rescheduleBookingOp });
