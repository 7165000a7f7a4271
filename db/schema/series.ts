import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, instant, oneOf } from './columns';
import { customers } from './customers';

/**
 * A recurring series as booked (docs/arbitration.md "Recurring series"; migration 0043): its rule
 * and where it starts, kept so its invitation is one VEVENT with that RRULE in the owner's zone
 * (docs/calendars.md "Series invitations"). The occurrences stay claims carrying `series_id`
 * (claims.series_id, no foreign key: a claim's insert stays one statement).
 */
export const claimSeries = pgTable(
  'claim_series',
  {
  id: uuid('id').primaryKey(),
  customerId: uuid('customer_id')
    .notNull()
    .references(() => customers.id, { onDelete: 'cascade' }),
  /** The RRULE as asked (without DTSTART). */
  recurrence: text('recurrence').notNull(),
  /** The owner's zone the rule was expanded in. */
  timeZone: text('time_zone').notNull(),
  /** The first occurrence of the rule (booked or refused): the series' DTSTART and DTEND. */
  firstStart: instant('first_start').notNull(),
  firstEnd: instant('first_end').notNull(),
  createdAt: createdAt(),
  },
  // The invitation sweep reads the series made in the last day; a customer's deletion cascades.
  (t) => [index('claim_series_customer_idx').on(t.customerId, t.createdAt), index('claim_series_created_idx').on(t.createdAt)],
);

/** What the last invitation mail of a series said (series_invitations.sent). */
export type SentSeriesInvitation = {
  attendees: string[];
  /** Each occurrence announced, by claim id: the rule's instance it is (RECURRENCE-ID) and the time last told. */
  occurrences: Record<string, { rid: string; start: string; end: string }>;
  /** Instances the series no longer has (refused at booking, or cancelled since), as told. */
  exdates: string[];
  /** The rule cut short by a cancel of this and following occurrences: the last instance kept (UNTIL). */
  until: string | null;
};

export const SERIES_INVITATION_METHODS = ['REQUEST', 'CANCEL'] as const;

/**
 * A series' ICS invitation (docs/calendars.md "Series invitations"): one per series, REQUEST
 * once booked, then updates (SEQUENCE grows) as occurrences are cancelled or moved, CANCEL when
 * none is left.
 */
export const seriesInvitations = pgTable(
  'series_invitations',
  {
    seriesId: uuid('series_id')
      .primaryKey()
      .references(() => claimSeries.id, { onDelete: 'cascade' }),
    uid: text('uid').notNull(),
    sequence: integer('sequence').notNull().default(0),
    method: text('method', { enum: SERIES_INVITATION_METHODS }).notNull(),
    sentAt: instant('sent_at').notNull(),
    sent: jsonb('sent').$type<SentSeriesInvitation>().notNull(),
  },
  (t) => [oneOf('series_invitations_method_check', t.method, SERIES_INVITATION_METHODS)],
);
