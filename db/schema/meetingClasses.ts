import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, oneOf } from './columns';
import { customers } from './customers';

export const PREEMPT_POLICIES = ['preempt_lower', 'never'] as const;
/** What a booking of the class gets when it is preempted (docs/arbitration.md "Bumped meetings rebooked"); null: nothing. */
export const ON_PREEMPTED = ['hold_nearest'] as const;

/** Customer-scoped meeting class, referenced by name in the API. Higher priority wins. */
export const meetingClasses = pgTable(
  'meeting_classes',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    priority: integer('priority').notNull(),
    preemptPolicy: text('preempt_policy', { enum: PREEMPT_POLICIES }).notNull().default('preempt_lower'),
    sacredMeetingAgeHours: integer('sacred_meeting_age_hours').notNull().default(24),
    /** Minutes kept free before and after each meeting of the class (0-240; docs/arbitration.md "Buffers"). */
    bufferBeforeMinutes: integer('buffer_before_minutes').notNull().default(0),
    bufferAfterMinutes: integer('buffer_after_minutes').notNull().default(0),
    /** Minutes before each meeting of the class at which its attendees are reminded (at most 5, 5-10080; docs/reliability.md "Reminders"). */
    reminderOffsetsMinutes: integer('reminder_offsets_minutes').array().notNull().default(sql`'{}'`),
    /** hold_nearest: a preempted booking of the class gets a hold on the nearest slot its rules accept; null: nothing. */
    onPreempted: text('on_preempted', { enum: ON_PREEMPTED }),
    /** Grows on every change of the class (migration 0023 trigger; docs/arbitration.md "Confirm: when the hold's decision stands"). Never written by the service. */
    version: integer('version').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('meeting_classes_customer_name_key').on(t.customerId, t.name),
    // Target of (customer_id, meeting_class_id) foreign keys: a class is used only by its own customer.
    unique('meeting_classes_customer_id_key').on(t.customerId, t.id),
    oneOf('meeting_classes_preempt_policy_check', t.preemptPolicy, PREEMPT_POLICIES),
    oneOf('meeting_classes_on_preempted_check', t.onPreempted, ON_PREEMPTED),
    check('meeting_classes_reminder_offsets_check', sql`cardinality(${t.reminderOffsetsMinutes}) <= 5 and 5 <= all(${t.reminderOffsetsMinutes}) and 10080 >= all(${t.reminderOffsetsMinutes})`),
    check('meeting_classes_buffers_check', sql`${t.bufferBeforeMinutes} between 0 and 240 and ${t.bufferAfterMinutes} between 0 and 240`),
  ],
);
