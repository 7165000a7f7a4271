import { openApiOp } from '@/server/http/operations/meta';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: openApiOp });
