import { listCalendarsOp } from '@/server/http/operations/calendars';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listCalendarsOp });
