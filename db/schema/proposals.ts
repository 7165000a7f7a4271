import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { agents } from './agents';
import { meetingClasses } from './meetingClasses';
import { customers } from './customers';
import { owners } from './owners';
import { publicLinks, publicMeetingTypes, type VideoProvider } from './publicLinks';
import { requesterIdentities } from './requesters';

export const PROPOSAL_STATUSES = ['pending_requester_verification', 'pending_review', 'booked', 'declined', 'withdrawn', 'expired', 'cancelled'] as const;
export const PROPOSAL_ORIGINS = ['public', 'agent'] as const;
export const CONTACT_VERIFICATION_STATUSES = ['pending', 'confirmed', 'expired'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/**
 * A booking proposal awaiting the owner's review: from a public requester
 * (origin public, addressed by a hashed access token) or from an agent.
 */
export const bookingProposals = pgTable(
  'booking_proposals',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull(),
    origin: text('origin', { enum: PROPOSAL_ORIGINS }).notNull(),
    linkId: uuid('link_id').references(() => publicLinks.id, { onDelete: 'set null' }),
    meetingTypeId: uuid('meeting_type_id').references(() => publicMeetingTypes.id, { onDelete: 'set null' }),
    meetingClassId: uuid('meeting_class_id'),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    requesterIdentityId: uuid('requester_identity_id').references(() => requesterIdentities.id, { onDelete: 'set null' }),
    status: text('status', { enum: PROPOSAL_STATUSES }).notNull(),
    requesterEmail: text('requester_email'),
    requesterName: text('requester_name'),
    /** The zone the requester's booking pages showed times in (IANA), for their mail; null: the owner's zone. */
    requesterTimeZone: text('requester_time_zone'),
    /** The booking pages' language the requester used (i18n/locales.ts LOCALES); null through the JSON API. */
    requesterLocale: text('requester_locale'),
    attendees: jsonb('attendees').$type<{ email: string; name?: string }[]>().notNull().default([]),
    durationMinutes: integer('duration_minutes'),
    requestedStart: instant('requested_start'),
    requestedEnd: instant('requested_end'),
    candidates: jsonb('candidates').$type<{ start: string; end: string }[]>().notNull().default([]),
    reason: text('reason'),
    message: text('message'),
    /** The meeting's title as the agent named it (agent proposals); the booking made on approval keeps it (docs/dashboard.md "Review"). */
    title: text('title'),
    accessTokenHash: text('access_token_hash'),
    /** The booking made on approval (foreign key, deferred: migration 0006_database_invariants). */
    bookingId: uuid('booking_id'),
    declineReason: text('decline_reason'),
    /**
     * A requester's request to move a booked meeting (docs/public-scheduling.md "Asking to move"):
     * the booking it would move. Approving it reschedules that booking in place (bookingId then
     * names it too). Foreign key and indexes: migration 0022_proposal_moves.
     */
    movesBookingId: uuid('moves_booking_id'),
    /** A public type's "repeat weekly for N weeks" (docs/public-scheduling.md "Repeating weekly"): the weeks asked for; approval books the series. Null: one meeting (migration 0044). */
    repeatWeeks: integer('repeat_weeks'),
    /**
     * An agent's booking held for the owner's approval (docs/api.md "Approval policies"): the hold
     * on the requested time. Approving promotes it through the claim runner; declining releases it.
     * Foreign key (deferred) and unique index: migration 0032_agent_approval_policy.
     */
    holdId: uuid('hold_id'),
    /** The video link the agent asked for with a held booking, made when approved (docs/calendars.md "Video links"). Migration 0037. */
    video: jsonb('video').$type<{ provider: VideoProvider; url?: string | null }>(),
    /** A collective type's proposal: every host (in each one's inbox; any of them decides for all). Migration 0021. */
    hostOwnerIds: uuid('host_owner_ids').array(),
    /** A pool type's proposal: the pool's choice at submission (pool id, reason, load, weight), recorded with the booking. */
    poolAssignment: jsonb('pool_assignment').$type<{ pool_id: string; reason: string; load_minutes: number; weight: number }>(),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
    expiresAt: instant('expires_at'),
  },
  (t) => [
    uniqueIndex('booking_proposals_access_token_key').on(t.accessTokenHash),
    index('booking_proposals_owner_status_idx').on(t.ownerId, t.status, t.createdAt),
    // A deleted claim looks up the proposal it booked (ON DELETE SET NULL): without it, a scan per claim.
    index('booking_proposals_hosts_idx').using('gin', t.hostOwnerIds).where(sql`${t.hostOwnerIds} is not null`),
    index('booking_proposals_booking_idx').on(t.bookingId).where(sql`${t.bookingId} is not null`),
    index('booking_proposals_moves_booking_idx').on(t.movesBookingId, t.createdAt).where(sql`${t.movesBookingId} is not null`),
    // One request to move waits per booking at a time.
    uniqueIndex('booking_proposals_one_pending_move_key')
      .on(t.movesBookingId)
      .where(sql`${t.movesBookingId} is not null and ${t.status} in ('pending_requester_verification', 'pending_review')`),
    // The owner and the meeting class belong to the proposal's customer.
    foreignKey({ name: 'booking_proposals_owner_fk', columns: [t.customerId, t.ownerId], foreignColumns: [owners.customerId, owners.id] }).onDelete('cascade'),
    foreignKey({ name: 'booking_proposals_meeting_class_fk', columns: [t.customerId, t.meetingClassId], foreignColumns: [meetingClasses.customerId, meetingClasses.id] }).onDelete('restrict'),
    uniqueIndex('booking_proposals_hold_key').on(t.holdId).where(sql`${t.holdId} is not null`),
    check('booking_proposals_repeat_weeks_check', sql`${t.repeatWeeks} is null or ${t.repeatWeeks} between 2 and 52`),
    // An agent's booking waits for approval on a hold; so does a requester's confirmed waitlist offer (migration 0045).
    check('booking_proposals_hold_origin', sql`${t.holdId} is null or ${t.origin} in ('agent', 'public')`),
    oneOf('booking_proposals_origin_check', t.origin, PROPOSAL_ORIGINS),
    oneOf('booking_proposals_status_check', t.status, PROPOSAL_STATUSES),
  ],
);

/** Proof that a public requester controls their contact email. */
export const contactVerifications = pgTable(
  'contact_verifications',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    proposalId: uuid('proposal_id').notNull().references(() => bookingProposals.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    email: text('email').notNull(),
    status: text('status', { enum: CONTACT_VERIFICATION_STATUSES }).notNull().default('pending'),
    createdAt: createdAt(),
    confirmedAt: instant('confirmed_at'),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('contact_verifications_token_key').on(t.tokenHash),
    oneOf('contact_verifications_status_check', t.status, CONTACT_VERIFICATION_STATUSES),
  ],
);
