import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { agents } from './agents';
import { claims } from './claims';
import { customers } from './customers';
import { meetingClasses } from './meetingClasses';
import { owners } from './owners';

/**
 * Stored statuses of a waitlist entry (docs/api.md "Waitlist"). `fulfilled` (its hold
 * confirmed) and `expired` (a waiting entry past expires_at) are read from the clock and the
 * hold, never written: nothing on the confirm path touches this table.
 */
export const WAITLIST_STATUSES = ['waiting', 'offered', 'lapsed', 'cancelled'] as const;

/** An agent waiting for time of one owner: a window, a duration and a meeting class (docs/arbitration.md "Waitlist"). */
export const waitlistEntries = pgTable(
  'waitlist_entries',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    ownerId: uuid('owner_id').notNull(),
    meetingClassId: uuid('meeting_class_id').notNull(),
    calendarType: text('calendar_type'),
    durationMinutes: integer('duration_minutes').notNull(),
    windowStart: instant('window_start').notNull(),
    windowEnd: instant('window_end').notNull(),
    expiresAt: instant('expires_at'),
    status: text('status', { enum: WAITLIST_STATUSES }).notNull().default('waiting'),
    holdId: uuid('hold_id').references(() => claims.id, { onDelete: 'set null' }),
    offeredAt: instant('offered_at'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // The offer's look-up: an owner's waiting entries, in the order they are offered.
    index('waitlist_entries_owner_waiting_idx').on(t.ownerId, t.createdAt).where(sql`${t.status} = 'waiting'`),
    index('waitlist_entries_agent_idx').on(t.customerId, t.agentId, t.createdAt),
    index('waitlist_entries_hold_idx').on(t.holdId).where(sql`${t.holdId} is not null`),
    foreignKey({ name: 'waitlist_entries_agent_fk', columns: [t.customerId, t.agentId], foreignColumns: [agents.customerId, agents.id] }).onDelete('cascade'),
    foreignKey({ name: 'waitlist_entries_owner_fk', columns: [t.customerId, t.ownerId], foreignColumns: [owners.customerId, owners.id] }).onDelete('cascade'),
    foreignKey({ name: 'waitlist_entries_meeting_class_fk', columns: [t.customerId, t.meetingClassId], foreignColumns: [meetingClasses.customerId, meetingClasses.id] }).onDelete('cascade'),
    oneOf('waitlist_entries_status_check', t.status, WAITLIST_STATUSES),
    check('waitlist_entries_duration', sql`${t.durationMinutes} > 0 and ${t.durationMinutes} <= 1440`),
    check('waitlist_entries_window', sql`${t.windowEnd} > ${t.windowStart} and ${t.windowEnd} - ${t.windowStart} >= make_interval(mins => ${t.durationMinutes})`),
    check('waitlist_entries_offer', sql`(${t.status} <> 'waiting' or (${t.holdId} is null and ${t.offeredAt} is null)) and (${t.status} <> 'offered' or (${t.holdId} is not null and ${t.offeredAt} is not null))`),
  ],
);
