import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, oneOf } from './columns';
import { audiences } from './audiences';
import { customers } from './customers';
import { publicLinks, publicMeetingTypes } from './publicLinks';

export const ALLOCATION_PERIODS = ['day', 'week', 'month'] as const;

/** A cap on bookings made through a public meeting type per period (optionally per audience). */
export const allocations = pgTable(
  'allocations',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    linkId: uuid('link_id').notNull().references(() => publicLinks.id, { onDelete: 'cascade' }),
    meetingTypeId: uuid('meeting_type_id').notNull().references(() => publicMeetingTypes.id, { onDelete: 'cascade' }),
    audienceId: uuid('audience_id').references(() => audiences.id, { onDelete: 'restrict' }),
    limit: integer('limit').notNull(),
    period: text('period', { enum: ALLOCATION_PERIODS }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('allocations_type_idx').on(t.meetingTypeId), oneOf('allocations_period_check', t.period, ALLOCATION_PERIODS)],
);
