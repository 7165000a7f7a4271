import { z } from 'zod';
import { WEBHOOK_DELIVERY_KINDS, WEBHOOK_EVENT_KINDS } from '@/db/schema';
import { Id, NullableTimestamp, Timestamp } from './common';

const EventKind = z.enum(WEBHOOK_EVENT_KINDS);
const Url = z.string().min(1).max(2048).describe('http(s) URL that receives the signed POSTs (docs/webhooks.md)');
const Events = z.array(EventKind).min(1).max(WEBHOOK_EVENT_KINDS.length).describe('Event kinds this endpoint receives');

const IncludeOwn = z.boolean().describe("Also the events of this agent's own changes (its own reschedule or cancel; docs/webhooks.md \"Own events\"); default false");

export const WebhookCreateBody = z.strictObject({
  url: Url,
  events: Events,
  description: z.string().max(200).nullable().optional(),
  include_own: IncludeOwn.optional(),
});

export const WebhookPatchBody = z.strictObject({
  url: Url.optional(),
  events: Events.optional(),
  description: z.string().max(200).nullable().optional(),
  include_own: IncludeOwn.optional(),
  enabled: z.boolean().optional().describe('false disables; true re-enables a disabled endpoint (its pending deliveries resume in order)'),
});

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(EventKind),
    include_own: z.boolean(),
    status: z.enum(['active', 'disabled']),
    consecutive_failures: z.int(),
    disabled_reason: z.string().nullable(),
    disabled_at: NullableTimestamp,
    created_at: Timestamp,
  })
  .meta({ id: 'Webhook' });

export const CreatedWebhook = Webhook.extend({
  secret: z.string().nullable().describe('The signing secret (whsec_...): shown only in this response; null on an idempotent replay'),
}).meta({ id: 'CreatedWebhook' });

export const WebhookList = z.object({ webhooks: z.array(Webhook) });
export const DeletedWebhook = z.object({ id: z.string(), deleted: z.literal(true) });
export const WebhookTestResult = z.object({ delivery_id: z.string(), event_id: z.string() });

const WebhookDelivery = z
  .object({
    id: z.string().describe('Sent as Webhook-Id: the same on every attempt'),
    event_id: z.string(),
    kind: z.enum(WEBHOOK_DELIVERY_KINDS),
    status: z.enum(['pending', 'delivered']),
    attempts: z.int(),
    last_status: z.int().nullable().describe('HTTP status of the last attempt (null: no answer)'),
    last_error: z.string().nullable(),
    last_attempt_at: NullableTimestamp,
    next_attempt_at: NullableTimestamp.describe('When pending: the next attempt'),
    delivered_at: NullableTimestamp,
    created_at: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: Id.optional().describe('next_cursor of the previous page'),
});
export const DeliveryList = z.object({ deliveries: z.array(WebhookDelivery), next_cursor: z.string().nullable() });
