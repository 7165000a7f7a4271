import { getMeetingClassOp, updateMeetingClassOp } from '@/server/http/operations/admin';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: getMeetingClassOp, PATCH: updateMeetingClassOp });
