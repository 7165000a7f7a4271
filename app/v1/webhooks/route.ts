import { createWebhookOp, listWebhooksOp } from '@/server/http/operations/webhooks';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listWebhooksOp, POST: createWebhookOp });
