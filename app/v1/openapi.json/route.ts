import { openApiOp } from '@/server/http/operations';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: openApiOp });
