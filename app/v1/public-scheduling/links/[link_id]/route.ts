import { deleteLinkOp, getLinkOp, updateLinkOp } from '@/server/http/operations/publicAdmin';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: getLinkOp, PATCH: updateLinkOp, DELETE: deleteLinkOp });
