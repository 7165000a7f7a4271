import { bigint, boolean, foreignKey, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { agents } from './agents';
import { customers } from './customers';

export const NOTIFICATION_KINDS = ['hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled', 'waitlist.offered'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * Per-agent notification queue, drained oldest first into error envelopes and GET /v1/notifications.
 * `seq` grows with every item (across agents); GET /v1/notifications?since=<seq> reads items after
 * it, delivered or not, for 7 days (docs/api.md "Notifications").
 */
export const notifications = pgTable(
  'notifications',
  {
    id: idColumn(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    kind: text('kind', { enum: NOTIFICATION_KINDS }).notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    deliveredAt: instant('delivered_at'),
    /** An event of the agent's own change: stored delivered, read only with include_own (docs/webhooks.md "Own events"). */
    own: boolean('own').notNull().default(false),
  },
  (t) => [
    index('notifications_agent_seq_idx').on(t.agentId, t.seq),
    index('notifications_pending_idx').on(t.agentId, t.createdAt, t.id).where(sql`${t.deliveredAt} is null`),
    foreignKey({ name: 'notifications_agent_fk', columns: [t.customerId, t.agentId], foreignColumns: [agents.customerId, agents.id] }).onDelete('cascade'),
    oneOf('notifications_kind_check', t.kind, NOTIFICATION_KINDS),
  ],
);
