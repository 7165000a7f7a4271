import { boolean, index, integer, jsonb, numeric, pgTable, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { customers } from './customers';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
export type LocalRangeJson = { start: string; end: string };
export type WorkingHoursJson = Record<Weekday, LocalRangeJson[]>;
export type HardBlockJson =
  | { days: Weekday[]; start: string; end: string; label?: string }
  /** count_checkpoint: computed when saved (server/domain/scheduling/rrule.ts), not part of the API. */
  | { rrule: string; dtstart: string; duration_minutes: number; label?: string; count_checkpoint?: { day: string; used: number } };

/** A local date's working hours in place of its weekday's ([] = a day off; docs/arbitration.md "Date overrides"). */
export type DateOverrideJson = { date: string; working_hours: LocalRangeJson[] };

/** Inclusive owner-local dates YYYY-MM-DD the owner is away (docs/arbitration.md "Out of office"). */
export type OutOfOfficeJson = { start: string; end: string; note?: string };

export const OWNER_ROLES = ['admin', 'member'] as const;

/**
 * A calendar owner and their schedule rules (one aggregate: the rules are
 * always read and written with the owner). `working_hours` null means
 * "not configured" (no restriction, WORKING_HOURS_NOT_CONFIGURED warning).
 * Emails are stored lower-cased.
 */
export const owners = pgTable(
  'owners',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    name: text('name'),
    timeZone: text('time_zone').notNull(),
    role: text('role', { enum: OWNER_ROLES }).notNull().default('member'),
    /** Dashboard sign-in (scrypt, server/domain/passwords.ts); null: the owner cannot sign in yet. */
    passwordHash: text('password_hash'),
    /**
     * Dashboard sessions carry the version they were issued under; setting a
     * password increments it, so every session issued before stops working.
     */
    sessionVersion: integer('session_version').notNull().default(0),
    /**
     * When an admin last emailed this owner an invitation (a sign-in link):
     * an invited owner may sign in by emailed link without a password.
     */
    invitedAt: instant('invited_at'),
    workingHours: jsonb('working_hours').$type<WorkingHoursJson | null>(),
    hardBlocks: jsonb('hard_blocks').$type<HardBlockJson[]>().notNull().default([]),
    maxDailyMeetingHours: numeric('max_daily_meeting_hours', { mode: 'number' }),
    /** Meetings' buffers keep clear of provider-calendar busy time too (default: they apply between claims only; docs/arbitration.md "Buffers"). */
    bufferExternalEvents: boolean('buffer_external_events').notNull().default(false),
    /** Local dates whose hours replace the weekly ones (docs/arbitration.md "Date overrides"). */
    dateOverrides: jsonb('date_overrides').$type<DateOverrideJson[]>().notNull().default([]),
    /** Inclusive local date ranges the owner is away: nothing is booked or offered in them. */
    outOfOffice: jsonb('out_of_office').$type<OutOfOfficeJson[]>().notNull().default([]),
    /**
     * Versions of what a claim decision reads about this owner, maintained by the database
     * (migration 0023 triggers; docs/arbitration.md "Confirm: when the hold's decision stands"):
     * rules_version grows when time_zone, working_hours, hard_blocks,
     * max_daily_meeting_hours, buffer_external_events, date_overrides or out_of_office change, whoever writes them; mirror_version when the provider
     * mirror changes (calendar_events written, a calendar connected, disconnected, or its
     * status or "check for conflicts" changed). Never written by the service.
     */
    rulesVersion: integer('rules_version').notNull().default(0),
    mirrorVersion: integer('mirror_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('owners_customer_email_key').on(t.customerId, t.email),
    index('owners_email_idx').on(t.email),
    // Target of (customer_id, owner_id) foreign keys: rows about an owner belong to the owner's customer.
    unique('owners_customer_id_key').on(t.customerId, t.id),
    oneOf('owners_role_check', t.role, OWNER_ROLES),
  ],
);
