import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { agents } from './agents';
import { claims } from './claims';
import { customers } from './customers';
import { meetingClasses } from './meetingClasses';
import { owners } from './owners';
import { publicLinks, publicMeetingTypes } from './publicLinks';
import { bookingProposals } from './proposals';

/**
 * Stored statuses of a waitlist entry (docs/api.md "Waitlist"). `fulfilled` (its hold
 * confirmed) and `expired` (a waiting entry past expires_at) are read from the clock and the
 * hold, never written: nothing on the confirm path touches this table.
 */
export const WAITLIST_STATUSES = ['waiting', 'offered', 'lapsed', 'cancelled'] as const;

/**
 * An agent, or a requester on a public link's meeting type, waiting for time of one owner: a
 * window, a duration and a meeting class (docs/arbitration.md "Waitlist"). Exactly one of the two
 * (check waitlist_entries_who, migration 0045): `agentId`, or `requesterEmail` with the link and
 * meeting type, the token's hash and sealed token, and the pages' base URL.
 */
export const waitlistEntries = pgTable(
  'waitlist_entries',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id'),
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
    linkId: uuid('link_id').references(() => publicLinks.id, { onDelete: 'cascade' }),
    meetingTypeId: uuid('meeting_type_id').references(() => publicMeetingTypes.id, { onDelete: 'cascade' }),
    requesterEmail: text('requester_email'),
    requesterName: text('requester_name'),
    /** The booking pages' language (i18n/locales.ts), for the requester's mails. */
    requesterLocale: text('requester_locale'),
    /** The zone the pages showed times in (IANA); null: the owner's. */
    requesterTimeZone: text('requester_time_zone'),
    /** SHA-256 of the entry's page token (`wl_...`): the page, its confirm, decline and leave look it up. */
    tokenHash: text('token_hash'),
    /** The token sealed with the at-rest keys (server/domain/sealing.ts): the offer's mail, sent after COMMIT, carries the link. */
    tokenSealed: text('token_sealed'),
    /** The pages' base URL when the requester joined: the links in the mails. */
    baseUrl: text('base_url'),
    /** When the offer's mail went out (null while it is due: claims/waitlist/offerMail.ts). */
    offerMailedAt: instant('offer_mailed_at'),
    /** The request filed when the requester confirmed the offered hold. */
    proposalId: uuid('proposal_id').references(() => bookingProposals.id, { onDelete: 'set null' }),
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
    uniqueIndex('waitlist_entries_token_key').on(t.tokenHash).where(sql`${t.tokenHash} is not null`),
    index('waitlist_entries_requester_idx').on(t.linkId, t.requesterEmail, t.createdAt).where(sql`${t.requesterEmail} is not null`),
    index('waitlist_entries_offer_mail_idx')
      .on(t.offeredAt)
      .where(sql`${t.requesterEmail} is not null and ${t.status} = 'offered' and ${t.offerMailedAt} is null`),
    check(
      'waitlist_entries_who',
      sql`(${t.agentId} is not null and ${t.requesterEmail} is null and ${t.linkId} is null and ${t.meetingTypeId} is null and ${t.tokenHash} is null and ${t.tokenSealed} is null) or (${t.agentId} is null and ${t.requesterEmail} is not null and ${t.linkId} is not null and ${t.meetingTypeId} is not null and ${t.tokenHash} is not null and ${t.tokenSealed} is not null and ${t.baseUrl} is not null)`,
    ),
    check('waitlist_entries_offer', sql`(${t.status} <> 'waiting' or (${t.holdId} is null and ${t.offeredAt} is null)) and (${t.status} <> 'offered' or (${t.holdId} is not null and ${t.offeredAt} is not null))`),
  ],
);
