import { integer, pgTable, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, oneOf } from './columns';
import { customers } from './customers';

export const PREEMPT_POLICIES = ['preempt_lower', 'never'] as const;

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
    /** Grows on every change of the class (migration 0023 trigger; docs/arbitration.md "Confirm: when the hold's decision stands"). Never written by the service. */
    version: integer('version').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('meeting_classes_customer_name_key').on(t.customerId, t.name),
    // Target of (customer_id, meeting_class_id) foreign keys: a class is used only by its own customer.
    unique('meeting_classes_customer_id_key').on(t.customerId, t.id),
    oneOf('meeting_classes_preempt_policy_check', t.preemptPolicy, PREEMPT_POLICIES),
  ],
);
