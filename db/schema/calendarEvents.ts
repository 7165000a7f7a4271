import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { idColumn, instant } from './columns';
import { calendars } from './calendars';
import { claims } from './claims';
import { owners } from './owners';

/**
 * The local mirror of provider events: one row per (expanded) busy instance,
 * written by calendar sync and read by availability search and arbitration
 * as sacred busy time (docs/calendars.md). Provider events may overlap each
 * other, so they live here, beside the claims, outside the claims' exclusion
 * constraint.
 */
export const calendarEvents = pgTable(
  'calendar_events',
  {
    id: idColumn(),
    calendarId: uuid('calendar_id').notNull().references(() => calendars.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull().references(() => owners.id, { onDelete: 'cascade' }),
    /** The provider resource the instance came from (CalDAV: the object's href). */
    resource: text('resource').notNull(),
    uid: text('uid').notNull(),
    startAt: instant('start_at').notNull(),
    endAt: instant('end_at').notNull(),
  },
  (t) => [
    index('calendar_events_owner_range_idx').on(t.ownerId, t.startAt, t.endAt),
    index('calendar_events_resource_idx').on(t.calendarId, t.resource),
  ],
);

/**
 * The provider event written for one of the service's bookings. Sync
 * recognises these UIDs on the way back and does not import them again.
 */
export const calendarBookingEvents = pgTable(
  'calendar_booking_events',
  {
    id: idColumn(),
    calendarId: uuid('calendar_id').notNull().references(() => calendars.id, { onDelete: 'cascade' }),
    claimId: uuid('claim_id').notNull().references(() => claims.id, { onDelete: 'cascade' }),
    uid: text('uid').notNull(),
    resource: text('resource').notNull(),
    etag: text('etag'),
    /** The booking's revision (claims.sequence) this event was last written at; a newer one is written over it (a move, an edit). */
    sequence: integer('sequence').notNull().default(0),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('calendar_booking_events_claim_idx').on(t.calendarId, t.claimId),
    uniqueIndex('calendar_booking_events_uid_idx').on(t.calendarId, t.uid),
    // A deleted claim looks up its provider events by claim alone (ON DELETE CASCADE).
    index('calendar_booking_events_claim_id_idx').on(t.claimId),
  ],
);

/** What the last invitation mail of a booking said: whom it went to and what it told them. */
/** What an invitation mail said; `video`: the join link it carried (null: none yet; absent on rows sent before it was recorded). */
export type SentInvitation = { attendees: string[]; start: string; end: string; title: string; location: string | null; video?: string | null };

/**
 * The ICS invitation sent to a booking's attendees: METHOD:REQUEST once it is
 * confirmed, METHOD:CANCEL (next SEQUENCE) once it is cancelled or preempted;
 * `sent` is what the last mail said (null on rows sent before it was kept).
 */
export const bookingInvitations = pgTable('booking_invitations', {
  claimId: uuid('claim_id')
    .primaryKey()
    .references(() => claims.id, { onDelete: 'cascade' }),
  uid: text('uid').notNull(),
  sequence: integer('sequence').notNull().default(0),
  method: text('method', { enum: ['REQUEST', 'CANCEL'] }).notNull(),
  sentAt: instant('sent_at').notNull(),
  sent: jsonb('sent').$type<SentInvitation>(),
});
