import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant } from './columns';
import { agents } from './agents';
import { customers } from './customers';
import { owners } from './owners';
import { publicLinks, publicMeetingTypes } from './publicLinks';
import { requesterIdentities } from './requesters';

export const PROPOSAL_STATUSES = ['pending_requester_verification', 'pending_review', 'booked', 'declined', 'withdrawn', 'expired'] as const;
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
    ownerId: uuid('owner_id').notNull().references(() => owners.id, { onDelete: 'cascade' }),
    origin: text('origin', { enum: ['public', 'agent'] }).notNull(),
    linkId: uuid('link_id').references(() => publicLinks.id, { onDelete: 'set null' }),
    meetingTypeId: uuid('meeting_type_id').references(() => publicMeetingTypes.id, { onDelete: 'set null' }),
    meetingClassId: uuid('meeting_class_id'),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    requesterIdentityId: uuid('requester_identity_id').references(() => requesterIdentities.id, { onDelete: 'set null' }),
    status: text('status', { enum: PROPOSAL_STATUSES }).notNull(),
    requesterEmail: text('requester_email'),
    requesterName: text('requester_name'),
    attendees: jsonb('attendees').$type<{ email: string; name?: string }[]>().notNull().default([]),
    durationMinutes: integer('duration_minutes'),
    requestedStart: instant('requested_start'),
    requestedEnd: instant('requested_end'),
    candidates: jsonb('candidates').$type<{ start: string; end: string }[]>().notNull().default([]),
    reason: text('reason'),
    message: text('message'),
    accessTokenHash: text('access_token_hash'),
    bookingId: uuid('booking_id'),
    declineReason: text('decline_reason'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
    expiresAt: instant('expires_at'),
  },
  (t) => [
    uniqueIndex('booking_proposals_access_token_key').on(t.accessTokenHash),
    index('booking_proposals_owner_status_idx').on(t.ownerId, t.status, t.createdAt),
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
    status: text('status', { enum: ['pending', 'confirmed', 'expired'] }).notNull().default('pending'),
    createdAt: createdAt(),
    confirmedAt: instant('confirmed_at'),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [uniqueIndex('contact_verifications_token_key').on(t.tokenHash)],
);
