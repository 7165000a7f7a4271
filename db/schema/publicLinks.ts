import { sql } from 'drizzle-orm';
import { boolean, check, foreignKey, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { customers } from './customers';
import { meetingClasses } from './meetingClasses';
import { owners } from './owners';
import { audiences } from './audiences';
import { pools } from './pools';

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
  },
  (t) => [
    uniqueIndex('public_links_alias_key').on(t.alias),
    index('public_links_customer_idx').on(t.customerId),
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
    /** No suggested time starts sooner than this many hours from now. */
    minNoticeHours: integer('min_notice_hours').notNull().default(0),
    /** After the requester verifies their email, a time the arbiter accepts (without preemption) is booked at once. */
    bookInstantly: boolean('book_instantly').notNull().default(false),
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
  ],
);
