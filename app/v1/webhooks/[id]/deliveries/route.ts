import { listWebhookDeliveriesOp } from '@/server/http/operations/webhooks';
import { routes } from '@/server/http/handler';

export const { GET, POST, PUT, PATCH, DELETE } = routes({ GET: listWebhookDeliveriesOp });
