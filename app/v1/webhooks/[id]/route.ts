import { deleteWebhookOp, getWebhookOp, updateWebhookOp } from '@/server/http/operations/webhooks';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: getWebhookOp, PATCH: updateWebhookOp, DELETE: deleteWebhookOp });
