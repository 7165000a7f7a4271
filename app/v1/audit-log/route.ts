import { auditLogOp } from '@/server/http/operations/feeds';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: auditLogOp });
