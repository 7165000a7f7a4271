import { bigint, boolean, foreignKey, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { agents } from './agents';
import { customers } from './customers';
import { NOTIFICATION_KINDS } from './notifications';

/** What an endpoint can subscribe to: the notification kinds plus the agent's own effects (docs/webhooks.md). */
/** `disabled_reason` of an endpoint turned off through the API or the dashboard (the worker's own reason names the failures). */
export const WEBHOOK_MANUAL_DISABLE_REASON = 'disabled manually';
export const WEBHOOK_EVENT_KINDS = [...NOTIFICATION_KINDS, 'booking.created', 'booking.confirmed', 'proposal.created', 'series.created', 'series.cancelled'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];
/** Kinds a delivery row may carry: the subscribable ones plus the test-send. */
export const WEBHOOK_DELIVERY_KINDS = [...WEBHOOK_EVENT_KINDS, 'webhook.test'] as const;
export type WebhookDeliveryKind = (typeof WEBHOOK_DELIVERY_KINDS)[number];

export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered'] as const;

/** An agent's webhook endpoint. The signing secret signs, so it cannot be a hash: it is stored sealed (AES-256-GCM, server/domain/webhooks/secretStore.ts) and shown once. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    secret: text('secret').notNull(),
    events: text('events').array().$type<WebhookEventKind[]>().notNull(),
    /** Also the events of the agent's own changes (docs/webhooks.md "Own events"). */
    includeOwn: boolean('include_own').notNull().default(false),
    status: text('status', { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull().default('active'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    disabledReason: text('disabled_reason'),
    disabledAt: instant('disabled_at'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('webhook_endpoints_agent_idx').on(t.agentId),
    foreignKey({ name: 'webhook_endpoints_agent_fk', columns: [t.customerId, t.agentId], foreignColumns: [agents.customerId, agents.id] }).onDelete('cascade'),
    oneOf('webhook_endpoints_status_check', t.status, WEBHOOK_ENDPOINT_STATUSES),
  ],
);

/**
 * The outbox: one row per (event, endpoint), written in the transaction of the event.
 * `seq` orders an endpoint's rows; the worker sends only the oldest pending row of each
 * endpoint, under a lease (docs/webhooks.md).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: idColumn(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    customerId: uuid('customer_id').notNull(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id').notNull(),
    kind: text('kind', { enum: WEBHOOK_DELIVERY_KINDS }).notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull().defaultNow(),
    leaseUntil: instant('lease_until'),
    lastAttemptAt: instant('last_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: instant('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_deliveries_pending_idx').on(t.endpointId, t.seq).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_log_idx').on(t.endpointId, t.seq),
    oneOf('webhook_deliveries_kind_check', t.kind, WEBHOOK_DELIVERY_KINDS),
    oneOf('webhook_deliveries_status_check', t.status, WEBHOOK_DELIVERY_STATUSES),
  ],
);
