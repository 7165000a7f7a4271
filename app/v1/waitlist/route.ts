import { joinWaitlistOp, listWaitlistOp } from '@/server/http/operations/waitlist';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listWaitlistOp, POST: joinWaitlistOp });
