import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { claims } from './claims';
import { customers } from './customers';

/** skipped: its meeting had begun before a worker reached it (after an outage); nothing was sent. */
export const REMINDER_STATUSES = ['pending', 'sent', 'skipped'] as const;
/** A reminder's offset before its meeting: 5 minutes to 7 days; at most MAX_REMINDERS of them per class or type (migration 0035). */
export const MIN_REMINDER_OFFSET_MINUTES = 5;
export const MAX_REMINDER_OFFSET_MINUTES = 7 * 24 * 60;
export const MAX_REMINDERS = 5;

/**
 * One reminder of one booking (docs/reliability.md "Reminders"): due `offset_minutes` before the
 * booking's start. Written with the booking (the claim path), moved with it and dropped when it
 * is cancelled or preempted, in the transaction of that change (a claims trigger, migration 0035); sent by the reminder worker under a lease
 * (`lease_until`), and turned `sent` in the transaction that writes its notification and webhook
 * event, so it goes out once. Unique per (booking, offset). The booking's foreign key is
 * DEFERRABLE INITIALLY DEFERRED (migration 0035), as a booking's reminders are written before its
 * deferred insert reaches the database.
 */
export const bookingReminders = pgTable(
  'booking_reminders',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    bookingId: uuid('booking_id').notNull(),
    offsetMinutes: integer('offset_minutes').notNull(),
    dueAt: instant('due_at').notNull(),
    status: text('status', { enum: REMINDER_STATUSES }).notNull().default('pending'),
    leaseUntil: instant('lease_until'),
    attempts: integer('attempts').notNull().default(0),
    sentAt: instant('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('booking_reminders_booking_offset_key').on(t.bookingId, t.offsetMinutes),
    foreignKey({ name: 'booking_reminders_booking_id_claims_id_fk', columns: [t.bookingId], foreignColumns: [claims.id] }).onDelete('cascade'),
    index('booking_reminders_due_idx').on(t.dueAt).where(sql`${t.status} = 'pending'`),
    index('booking_reminders_customer_due_idx').on(t.customerId, t.dueAt).where(sql`${t.status} = 'pending'`),
    oneOf('booking_reminders_status_check', t.status, REMINDER_STATUSES),
    check('booking_reminders_offset_check', sql`${t.offsetMinutes} between 5 and 10080`),
  ],
);
