import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { instant, oneOf } from './columns';
import { calendars } from './calendars';
import { claims } from './claims';
import { owners } from './owners';
import { VIDEO_PROVIDERS } from './publicLinks';

export const VIDEO_LINK_STATUSES = ['pending', 'ready', 'failed'] as const;
export type VideoLinkStatus = (typeof VIDEO_LINK_STATUSES)[number];

/**
 * A booking's video link (migration 0033): written in the booking's own transaction (pending,
 * or ready at once for a fixed link) and made at the provider by the write-back of
 * `calendar_id` during its sync, outside any claim transaction, retried at each sync.
 */
export const bookingVideoLinks = pgTable(
  'booking_video_links',
  {
    claimId: uuid('claim_id')
      .primaryKey()
      .references(() => claims.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: VIDEO_PROVIDERS }).notNull(),
    /** The connected calendar whose provider makes the link (null for a fixed link, or when none was connected). */
    calendarId: uuid('calendar_id').references(() => calendars.id, { onDelete: 'set null' }),
    status: text('status', { enum: VIDEO_LINK_STATUSES }).notNull(),
    joinUrl: text('join_url'),
    conferenceId: text('conference_id'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /**
     * A group booking's member (docs/calendars.md "Video links"): the organizer's booking whose
     * link this row shows. Never made itself; copies what the organizer's row becomes. Foreign
     * key (deferred) and index: migration 0037_video_requests.
     */
    madeByClaimId: uuid('made_by_claim_id'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    oneOf('booking_video_links_provider_check', t.provider, VIDEO_PROVIDERS),
    oneOf('booking_video_links_status_check', t.status, VIDEO_LINK_STATUSES),
    index('booking_video_links_pending_idx').on(t.calendarId).where(sql`${t.status} = 'pending'`),
    index('booking_video_links_owner_idx').on(t.ownerId),
  ],
);
export type BookingVideoLinkRow = typeof bookingVideoLinks.$inferSelect;
