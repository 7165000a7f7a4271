import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { idColumn, instant } from './columns';
import { customers } from './customers';

/**
 * One row per decision (accept, reject, counter_propose), written in the same
 * transaction as its effect. Denormalised (owner email, class name) so the log
 * reads as it was at decision time.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    at: instant('at').notNull().defaultNow(),
    agentId: uuid('agent_id'),
    ownerId: uuid('owner_id'),
    ownerEmail: text('owner_email'),
    action: text('action').notNull(),
    outcome: text('outcome', { enum: ['accept', 'reject', 'counter_propose'] }).notNull(),
    reason: text('reason'),
    meetingClass: text('meeting_class'),
    startAt: instant('start_at'),
    endAt: instant('end_at'),
    holdId: uuid('hold_id'),
    bookingId: uuid('booking_id'),
    preemptedBookingIds: uuid('preempted_booking_ids').array().notNull().default([]),
    idempotencyKey: text('idempotency_key'),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [index('audit_customer_at_idx').on(t.customerId, t.at, t.id), index('audit_owner_at_idx').on(t.ownerId, t.at)],
);
