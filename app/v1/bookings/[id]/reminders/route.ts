import { bookingRemindersOp } from '@/server/http/operations/reminders';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: bookingRemindersOp });
