import { disconnectCalendarOp, updateCalendarOp } from '@/server/http/operations/calendars';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ PATCH: updateCalendarOp, DELETE: disconnectCalendarOp });
