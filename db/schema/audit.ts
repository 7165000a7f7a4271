import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { idColumn, instant, oneOf } from './columns';
import { customers } from './customers';

export const AUDIT_OUTCOMES = ['accept', 'reject', 'counter_propose', 'denied'] as const;

/**
 * One row per decision (accept, reject, counter_propose) and per
 * administrative change (outcome accept), written in the same transaction as
 * its effect. Denormalised (owner email, class name) so the log reads as it
 * was at decision time. The actor is `agent_id` (an API key's agent) or, for
 * a change an owner made through the dashboard, `actor_owner_id` and
 * `actor_owner_email`; `owner_id`/`owner_email` name the owner the entry is
 * about. `details` says what an administrative change changed.
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
    actorOwnerId: uuid('actor_owner_id'),
    actorOwnerEmail: text('actor_owner_email'),
    action: text('action').notNull(),
    outcome: text('outcome', { enum: AUDIT_OUTCOMES }).notNull(),
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
  (t) => [
    index('audit_customer_at_idx').on(t.customerId, t.at, t.id),
    index('audit_owner_at_idx').on(t.ownerId, t.at),
    oneOf('audit_log_outcome_check', t.outcome, AUDIT_OUTCOMES),
    check('audit_log_actor_owner', sql`(${t.actorOwnerId} is null) = (${t.actorOwnerEmail} is null)`),
  ],
);
