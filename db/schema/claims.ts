import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf, sqlList } from './columns';
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
 *
 * CHECK constraints below hold the kind/status pairs above, the hold-only and
 * booking-only columns, and the promoted/preempted links. The columns that
 * point at other claims (hold_id, promoted_booking_id, preempted_by_claim_id)
 * or at a proposal (proposal_id) have foreign keys DEFERRABLE INITIALLY
 * DEFERRED, checked at commit, because a decision links rows before it
 * inserts the claim they point at (a preempted claim names its preemptor, a
 * promoted hold its booking); drizzle cannot declare DEFERRABLE, so they live
 * in migration 0006_database_invariants.
 */
export const CLAIM_KINDS = ['hold', 'booking'] as const;
export const CLAIM_STATUSES = ['active', 'promoted', 'expired', 'released', 'confirmed', 'cancelled', 'preempted'] as const;
export const HOLD_STATUSES = ['active', 'promoted', 'expired', 'released', 'preempted'] as const;
export const BOOKING_STATUSES = ['confirmed', 'cancelled', 'preempted'] as const;
export const HOLD_SCOPES = ['candidate', 'window'] as const;
export const HOLD_COVERAGES = ['first_fit', 'all_free'] as const;
export const CLAIM_SOURCES = ['agent', 'public', 'provider'] as const;

export type AttendeeJson = { email: string; name?: string | null; response?: 'needs_action' | 'accepted' | 'declined' | 'tentative'; external?: boolean };

export const claims = pgTable(
  'claims',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull(),
    calendarId: uuid('calendar_id').references(() => calendars.id, { onDelete: 'set null' }),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    meetingClassId: uuid('meeting_class_id'),
    kind: text('kind', { enum: CLAIM_KINDS }).notNull(),
    status: text('status', { enum: CLAIM_STATUSES }).notNull(),
    /** The claimed interval: a booking's slot, or a hold's held window. */
    startAt: instant('start_at').notNull(),
    endAt: instant('end_at').notNull(),
    // --- hold fields
    holdScope: text('hold_scope', { enum: HOLD_SCOPES }),
    /** Window holds: the meeting length; counts toward daily limits instead of the whole window. */
    durationMinutes: integer('duration_minutes'),
    expiresAt: instant('expires_at'),
    promotedBookingId: uuid('promoted_booking_id'),
    /** Window holds: `first_fit` (one stretch) or `all_free` (every free stretch; null reads as first_fit). */
    coverage: text('coverage', { enum: HOLD_COVERAGES }),
    /**
     * A further range of an `all_free` window hold: the hold (the row of its first range) it
     * belongs to. It shares the hold's expiry and class, sits under the exclusion constraint
     * like any claim, and is released when the hold is confirmed, released or gives way.
     */
    partOfHoldId: uuid('part_of_hold_id'),
    /**
     * A hold's decision and what it was taken on (docs/arbitration.md "Confirm: when the hold's
     * decision stands"): the owner's rules_version, the meeting class's version and the owner's
     * mirror_version read under the owner lock when the hold was decided. Null (every booking,
     * group holds, holds made before migration 0023): a confirm arbitrates again.
     */
    decidedRulesVersion: integer('decided_rules_version'),
    decidedClassVersion: integer('decided_class_version'),
    decidedMirrorVersion: integer('decided_mirror_version'),
    /**
     * The time the claim keeps free around itself (docs/arbitration.md "Buffers"): its class's
     * or public meeting type's buffers when it was decided, kept with the claim so a later
     * change of the class does not move what earlier decisions relied on; a move keeps them.
     */
    bufferBeforeMinutes: integer('buffer_before_minutes').notNull().default(0),
    bufferAfterMinutes: integer('buffer_after_minutes').notNull().default(0),
    // --- booking fields
    holdId: uuid('hold_id'),
    source: text('source', { enum: CLAIM_SOURCES }).notNull().default('agent'),
    title: text('title'),
    description: text('description'),
    attendees: jsonb('attendees').$type<AttendeeJson[]>().notNull().default([]),
    externalAccepted: boolean('external_accepted').notNull().default(false),
    proposalId: uuid('proposal_id'),
    /** A group hold or booking: every member claim (one per owner) shares it (docs/groups.md). */
    groupId: uuid('group_id'),
    /** An occurrence of a recurring series: every occurrence shares it (docs/arbitration.md "Recurring series"; migration 0040). */
    seriesId: uuid('series_id'),
    // --- lifecycle
    preemptedByClaimId: uuid('preempted_by_claim_id'),
    statusReason: text('status_reason'),
    idempotencyKey: text('idempotency_key'),
    /** A booking's revision: 0 when made, one more on each move or edit of its details (invitation updates and provider write-back follow it). */
    sequence: integer('sequence').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('claims_customer_idx').on(t.customerId, t.kind, t.createdAt),
    index('claims_owner_start_idx').on(t.ownerId, t.startAt),
    index('claims_agent_idem_idx').on(t.agentId, t.idempotencyKey),
    index('claims_group_idx').on(t.groupId).where(sql`${t.groupId} is not null`),
    index('claims_series_idx').on(t.seriesId, t.startAt).where(sql`${t.seriesId} is not null`),
    index('claims_part_of_hold_idx').on(t.partOfHoldId).where(sql`${t.partOfHoldId} is not null`),
    // The other self-references: deleting (or cascading to) a claim looks up the claims that
    // point at it; without these each deleted row scans the table (docs/benchmarks.md, "Deleting a customer").
    index('claims_hold_id_idx').on(t.holdId).where(sql`${t.holdId} is not null`),
    index('claims_promoted_booking_idx').on(t.promotedBookingId).where(sql`${t.promotedBookingId} is not null`),
    index('claims_preempted_by_idx').on(t.preemptedByClaimId).where(sql`${t.preemptedByClaimId} is not null`),
    // The sweeper's look-up of holds whose time to live has passed.
    index('claims_active_hold_expiry_idx').on(t.expiresAt).where(sql`${t.kind} = 'hold' and ${t.status} = 'active'`),
    // One owner's due holds, expired inside its claim transaction: the owner's active holds
    // only, never its history (docs/operations.md, "Query plans").
    index('claims_owner_active_hold_expiry_idx').on(t.ownerId, t.expiresAt).where(sql`${t.kind} = 'hold' and ${t.status} = 'active'`),
    // The owner and the meeting class belong to the claim's customer.
    foreignKey({ name: 'claims_owner_fk', columns: [t.customerId, t.ownerId], foreignColumns: [owners.customerId, owners.id] }).onDelete('cascade'),
    foreignKey({ name: 'claims_meeting_class_fk', columns: [t.customerId, t.meetingClassId], foreignColumns: [meetingClasses.customerId, meetingClasses.id] }).onDelete('restrict'),
    oneOf('claims_kind_check', t.kind, CLAIM_KINDS),
    oneOf('claims_status_check', t.status, CLAIM_STATUSES),
    oneOf('claims_hold_scope_check', t.holdScope, HOLD_SCOPES),
    oneOf('claims_coverage_check', t.coverage, HOLD_COVERAGES),
    // Only window holds have a coverage, and only all_free ones have further ranges.
    check('claims_coverage_fields', sql`(${t.coverage} is null or ${t.holdScope} = 'window') and (${t.partOfHoldId} is null or ${t.coverage} = 'all_free')`),
    oneOf('claims_source_check', t.source, CLAIM_SOURCES),
    check(
      'claims_kind_status',
      sql`(${t.kind} = 'hold' and ${t.status} in (${sqlList(HOLD_STATUSES)})) or (${t.kind} = 'booking' and ${t.status} in (${sqlList(BOOKING_STATUSES)}))`,
    ),
    // A hold has a scope and an expiry; the hold fields stay empty on a booking.
    check(
      'claims_hold_fields',
      sql`case when ${t.kind} = 'hold' then ${t.holdScope} is not null and ${t.expiresAt} is not null
        else ${t.holdScope} is null and ${t.durationMinutes} is null and ${t.expiresAt} is null and ${t.promotedBookingId} is null end`,
    ),
    // The booking fields stay empty on a hold.
    check('claims_booking_fields', sql`${t.kind} = 'booking' or (${t.holdId} is null and ${t.proposalId} is null)`),
    // A hold is promoted exactly when it names its booking; only a preempted claim names its preemptor.
    check('claims_promoted_booking', sql`(${t.status} = 'promoted') = (${t.promotedBookingId} is not null)`),
    check('claims_preempted_by', sql`${t.preemptedByClaimId} is null or ${t.status} = 'preempted'`),
    check('claims_duration_positive', sql`${t.durationMinutes} is null or ${t.durationMinutes} > 0`),
    check('claims_buffers_check', sql`${t.bufferBeforeMinutes} between 0 and 240 and ${t.bufferAfterMinutes} between 0 and 240`),
  ],
);
