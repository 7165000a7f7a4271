import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant } from './columns';
import { agents } from './agents';
import { calendars } from './calendars';
import { customers } from './customers';
import { meetingClasses } from './meetingClasses';
import { owners } from './owners';

/**
 * Holds and bookings are the two kinds of one aggregate, the *claim* on an
 * owner's time, kept in one table because the invariant that matters spans
 * both: two ACTIVE claims of one owner never overlap. Migration
 * 0001_claims_no_overlap adds the exclusion constraint
 *   EXCLUDE USING gist (owner_id WITH =, tstzrange(start_at, end_at, '[)') WITH &&)
 *   WHERE (status IN ('active', 'confirmed'))
 * (drizzle cannot declare EXCLUDE), which also serves range look-ups.
 *
 * Hold statuses: active -> promoted | expired | released | preempted.
 * Booking statuses: confirmed -> cancelled | preempted.
 * An active hold whose expires_at has passed is expired by the clock; the
 * services flip its status before claiming time it overlaps.
 */
export const CLAIM_KINDS = ['hold', 'booking'] as const;
export const CLAIM_STATUSES = ['active', 'promoted', 'expired', 'released', 'confirmed', 'cancelled', 'preempted'] as const;
export const ACTIVE_CLAIM_STATUSES = ['active', 'confirmed'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

export type AttendeeJson = { email: string; name?: string | null; response?: 'needs_action' | 'accepted' | 'declined' | 'tentative'; external?: boolean };

export const claims = pgTable(
  'claims',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull().references(() => owners.id, { onDelete: 'cascade' }),
    calendarId: uuid('calendar_id').references(() => calendars.id, { onDelete: 'set null' }),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    meetingClassId: uuid('meeting_class_id').references(() => meetingClasses.id, { onDelete: 'restrict' }),
    kind: text('kind', { enum: CLAIM_KINDS }).notNull(),
    status: text('status', { enum: CLAIM_STATUSES }).notNull(),
    /** The claimed interval: a booking's slot, or a hold's held window. */
    startAt: instant('start_at').notNull(),
    endAt: instant('end_at').notNull(),
    // --- hold fields
    holdScope: text('hold_scope', { enum: ['candidate', 'window'] }),
    /** Window holds: the meeting length; counts toward daily limits instead of the whole window. */
    durationMinutes: integer('duration_minutes'),
    expiresAt: instant('expires_at'),
    promotedBookingId: uuid('promoted_booking_id'),
    // --- booking fields
    holdId: uuid('hold_id'),
    source: text('source', { enum: ['agent', 'public', 'provider'] }).notNull().default('agent'),
    title: text('title'),
    description: text('description'),
    attendees: jsonb('attendees').$type<AttendeeJson[]>().notNull().default([]),
    externalAccepted: boolean('external_accepted').notNull().default(false),
    proposalId: uuid('proposal_id'),
    // --- lifecycle
    preemptedByClaimId: uuid('preempted_by_claim_id'),
    statusReason: text('status_reason'),
    idempotencyKey: text('idempotency_key'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('claims_customer_idx').on(t.customerId, t.kind, t.createdAt),
    index('claims_owner_start_idx').on(t.ownerId, t.startAt),
    index('claims_agent_idem_idx').on(t.agentId, t.idempotencyKey),
    // The sweeper's look-up of holds whose time to live has passed.
    index('claims_active_hold_expiry_idx').on(t.expiresAt).where(sql`${t.kind} = 'hold' and ${t.status} = 'active'`),
  ],
);
