import { sql } from 'drizzle-orm';
import { boolean, foreignKey, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { customers } from './customers';
import { owners } from './owners';

export const CALENDAR_STATUSES = ['active', 'disconnected', 'reauth_required'] as const;

/**
 * A calendar connected to an owner. `internal` calendars keep their events in
 * this database and are what a new owner gets. Provider secrets live in
 * `credentials` (encrypted by the calendar integration, never plaintext).
 */
export const calendars = pgTable(
  'calendars',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull(),
    type: text('type').notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    status: text('status', { enum: CALENDAR_STATUSES }).notNull().default('active'),
    displayName: text('display_name'),
    credentials: jsonb('credentials').$type<Record<string, unknown> | null>(),
    /** Busy time of this calendar counts against the owner (docs/calendars.md). */
    checkConflicts: boolean('check_conflicts').notNull().default(true),
    /** Non-secret connection settings (server URL, calendar URL, user name). */
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    /** Provider sync cursor (CalDAV: ctag and the etag of every resource). */
    syncState: jsonb('sync_state').$type<Record<string, unknown> | null>(),
    /** Last successful sync: the mirror is as fresh as this. */
    lastSyncedAt: instant('last_synced_at'),
    lastSyncError: text('last_sync_error'),
    /** One sync of a calendar at a time across instances: the holder's lease ends here. */
    syncLeaseUntil: instant('sync_lease_until'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('calendars_owner_idx').on(t.ownerId),
    uniqueIndex('calendars_one_primary_per_owner').on(t.ownerId).where(sql`${t.isPrimary}`),
    // The owner belongs to the calendar's customer.
    foreignKey({ name: 'calendars_owner_fk', columns: [t.customerId, t.ownerId], foreignColumns: [owners.customerId, owners.id] }).onDelete('cascade'),
    oneOf('calendars_status_check', t.status, CALENDAR_STATUSES),
  ],
);
