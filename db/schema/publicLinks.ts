import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { customers } from './customers';
import { meetingClasses } from './meetingClasses';
import { owners } from './owners';
import { audiences } from './audiences';
import { pools } from './pools';
import { LOCALES } from '../../i18n/locales';

/** Where a video meeting is made (docs/calendars.md "Video links"). */
export const VIDEO_PROVIDERS = ['google_meet', 'microsoft_teams', 'link'] as const;
export type VideoProvider = (typeof VIDEO_PROVIDERS)[number];
export const PUBLIC_PREEMPT_POLICIES = ['inherit', 'never', 'preempt_lower'] as const;
export const VISIBILITIES = ['public', 'unlisted', 'audience'] as const;
/** Who hosts a type's meetings (docs/public-scheduling.md "Several hosts"): the link's owner, every owner of a list, or one member of a pool. */
export const HOST_MODES = ['single', 'collective', 'pool'] as const;

/**
 * A public scheduling link. `id` is the opaque public_scheduling_boundary_id;
 * `alias` is the readable path. Both address the link, so aliases are unique
 * across all customers.
 */
export const publicLinks = pgTable(
  'public_links',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull(),
    alias: text('alias').notNull(),
    title: text('title'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
    deletedAt: instant('deleted_at'),
    /** While the owner is out of office, requesters are sent to this link, a colleague's (migration 0034). */
    awayRedirectLinkId: uuid('away_redirect_link_id'),
    /** The requester pages' language when the request names none we have (docs/public-scheduling.md "Languages"); null: English (migration 0038). */
    defaultLanguage: text('default_language', { enum: LOCALES }),
  },
  (t) => [
    uniqueIndex('public_links_alias_key').on(t.alias),
    index('public_links_customer_idx').on(t.customerId),
    foreignKey({ name: 'public_links_away_redirect_fk', columns: [t.awayRedirectLinkId], foreignColumns: [t.id] }).onDelete('set null'),
    oneOf('public_links_default_language_check', t.defaultLanguage, LOCALES),
    index('public_links_away_redirect_idx').on(t.awayRedirectLinkId).where(sql`${t.awayRedirectLinkId} IS NOT NULL`),
    // The link's owner belongs to the link's customer.
    foreignKey({ name: 'public_links_owner_fk', columns: [t.customerId, t.ownerId], foreignColumns: [owners.customerId, owners.id] }).onDelete('cascade'),
  ],
);

/** A meeting type offered on a public link (slug unique per link). */
export const publicMeetingTypes = pgTable(
  'public_meeting_types',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    linkId: uuid('link_id').notNull().references(() => publicLinks.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    durationMinutes: integer('duration_minutes').array().notNull(),
    meetingClassId: uuid('meeting_class_id').notNull(),
    attendeeLimit: integer('attendee_limit'),
    publicPreemptPolicy: text('public_preempt_policy', { enum: PUBLIC_PREEMPT_POLICIES }).notNull().default('inherit'),
    visibility: text('visibility', { enum: VISIBILITIES }).notNull().default('public'),
    audienceId: uuid('audience_id').references(() => audiences.id, { onDelete: 'restrict' }),
    enabled: boolean('enabled').notNull().default(true),
    published: boolean('published').notNull().default(true),
    credentialSkipsVerification: boolean('credential_skips_verification').notNull().default(false),
    /** Shown on the public pages (docs/public-scheduling.md "Meeting type details"). */
    description: text('description'),
    /** An address or a video link, shown to the requester only once booked. */
    location: text('location'),
    /** A video meeting (docs/calendars.md "Video links"): made through the owner's Google or Microsoft calendar, or the fixed video_url. */
    videoProvider: text('video_provider', { enum: VIDEO_PROVIDERS }),
    videoUrl: text('video_url'),
    /** No suggested time starts sooner than this many hours from now. */
    minNoticeHours: integer('min_notice_hours').notNull().default(0),
    /** Minutes kept free before and after each meeting of the type (0-240; docs/arbitration.md "Buffers"). */
    bufferBeforeMinutes: integer('buffer_before_minutes').notNull().default(0),
    bufferAfterMinutes: integer('buffer_after_minutes').notNull().default(0),
    /** Reminder offsets of meetings booked through the type (docs/reliability.md "Reminders"); null: the meeting class's. */
    reminderOffsetsMinutes: integer('reminder_offsets_minutes').array(),
    /** After the requester verifies their email, a time the arbiter accepts (without preemption) is booked at once. */
    bookInstantly: boolean('book_instantly').notNull().default(false),
    /** A requester may ask for the meeting weekly, for 2 up to this many weeks (docs/public-scheduling.md "Repeating weekly"); null: not offered (migration 0044). */
    repeatWeeklyMaxWeeks: integer('repeat_weekly_max_weeks'),
    /** single: the link's owner; collective: every owner of hostOwnerIds; pool: one member of poolId (migration 0021). */
    hostMode: text('host_mode', { enum: HOST_MODES }).notNull().default('single'),
    /** collective: the hosts, in the order named (2 to 20 owners of the customer). */
    hostOwnerIds: uuid('host_owner_ids').array(),
    /** pool: the pool whose rule picks the host at submission (a deleted pool leaves the type without times). */
    poolId: uuid('pool_id').references(() => pools.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('public_meeting_types_link_slug_key').on(t.linkId, t.slug),
    // The meeting class belongs to the type's customer.
    foreignKey({ name: 'public_meeting_types_meeting_class_fk', columns: [t.customerId, t.meetingClassId], foreignColumns: [meetingClasses.customerId, meetingClasses.id] }).onDelete('restrict'),
    oneOf('public_meeting_types_public_preempt_policy_check', t.publicPreemptPolicy, PUBLIC_PREEMPT_POLICIES),
    oneOf('public_meeting_types_visibility_check', t.visibility, VISIBILITIES),
    oneOf('public_meeting_types_host_mode_check', t.hostMode, HOST_MODES),
    check('public_meeting_types_min_notice_hours_check', sql`${t.minNoticeHours} between 0 and 720`),
    oneOf('public_meeting_types_video_provider_check', t.videoProvider, VIDEO_PROVIDERS),
    check('public_meeting_types_video_url_check', sql`(${t.videoProvider} = 'link') = (${t.videoUrl} IS NOT NULL) OR ${t.videoProvider} IS NULL AND ${t.videoUrl} IS NULL`),
    check(
      'public_meeting_types_reminder_offsets_check',
      sql`${t.reminderOffsetsMinutes} is null or (cardinality(${t.reminderOffsetsMinutes}) <= 5 and 5 <= all(${t.reminderOffsetsMinutes}) and 10080 >= all(${t.reminderOffsetsMinutes}))`,
    ),
    check('public_meeting_types_repeat_weekly_max_weeks_check', sql`${t.repeatWeeklyMaxWeeks} is null or ${t.repeatWeeklyMaxWeeks} between 2 and 52`),
    check('public_meeting_types_buffers_check', sql`${t.bufferBeforeMinutes} between 0 and 240 and ${t.bufferAfterMinutes} between 0 and 240`),
  ],
);
