import { z } from 'zod';
import { SLUG_RE } from '@/server/domain/publicScheduling/admin/validation';
import { LOCALES } from '@/i18n/locales';
import { BufferMinutes, Email, ReminderOffsets, Id, Pagination, NullableTimestamp, Timestamp, VideoSetting, VideoSettingBody } from './common';

/**
 * Public scheduling administration. Aliases and domains are checked by the
 * domain (so they answer invalid_alias / invalid_domain, not invalid_request);
 * everything else here.
 */
const Alias = z.string().max(256).describe('Lowercase letters, digits and inner hyphens, 3 to 64; not reserved, not id-shaped');
const Title = z.string().min(1).max(200);
const Slug = z.string().regex(SLUG_RE, 'lowercase letters, digits and inner hyphens, 1 to 64');
const Duration = z.int().min(5).max(480);
const Policy = z.enum(['inherit', 'never', 'preempt_lower']);
const Visibility = z.enum(['public', 'unlisted', 'audience']);
const AudienceName = z.string().min(1).max(100);
const HostMode = z.enum(['single', 'collective', 'pool']);
const DomainName = z.string().max(1000).describe('Bare host name, e.g. example.com');
const Period = z.enum(['day', 'week', 'month']);
const DefaultLanguage = z
  .enum(LOCALES)
  .nullable()
  .describe("The language of the link's requester pages when the request names none of ours (?lang=, the language switcher's cookie, then Accept-Language win); null: English");
const Cursor = z.string().nullable().describe('Pass as `cursor` for the next page; null at the end');

export const ListQuery = z.strictObject(Pagination);
export const LinkParams = z.strictObject({ link_id: Id });
export const MeetingTypeParams = z.strictObject({ link_id: Id, slug: z.string().min(1).max(200) });
export const DomainParams = z.strictObject({ domain_id: Id });
export const IdParams = z.strictObject({ id: Id });
export const CredentialParams = z.strictObject({ id: Id, credential_id: Id });

// --- links
export const LinkCreateBody = z.strictObject({ owner_email: Email.optional(), alias: Alias, title: Title.optional(), default_language: DefaultLanguage.optional() });
export const LinkPatchBody = z.strictObject({
  alias: Alias.optional(),
  title: Title.nullable().optional(),
  away_redirect_link_id: Id.nullable().optional().describe("While the owner is out of office, send requesters to this link (another owner's, same customer); null: stay"),
  default_language: DefaultLanguage.optional(),
});
export const LinkListQuery = z.strictObject({ ...Pagination, owner_email: Email.optional() });
export const Link = z.object({
  link_id: z.string().describe('The public_scheduling_boundary_id'),
  alias: z.string(),
  title: z.string().nullable(),
  url: z.string().describe('{base_url}/public/schedules/{alias}'),
  owner_email: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Timestamp.optional().describe('Only in the answer to DELETE'),
  away_redirect_link_id: z.string().nullable().describe("While the owner is out of office, requesters are sent to this link (docs: public scheduling, Away)"),
  default_language: DefaultLanguage,
}).meta({ id: 'Link' });
export const LinkList = z.object({ links: z.array(Link), next_cursor: Cursor });

// --- meeting types
const MeetingTypeFields = {
  title: Title,
  duration_minutes: z.array(Duration).min(1).max(20).describe('Offered lengths, each 5 to 480'),
  meeting_class: z.string().min(1).max(100),
  attendee_limit: z.int().min(1).max(50).nullable().describe('People per proposal, counting the requester; null: no limit of its own (attendees stays at most 50 items)'),
  public_preempt_policy: Policy.describe('inherit (default), or a policy at most as flexible as the class'),
  visibility: Visibility,
  audience: AudienceName.nullable().describe('Required with visibility audience, refused otherwise'),
  enabled: z.boolean(),
  published: z.boolean(),
  credential_skips_verification: z.boolean().describe('A verified rc_ credential skips contact verification'),
  description: z.string().trim().min(1).max(2000).nullable().describe('Shown on the public pages (extension, docs/public-scheduling.md "Meeting type details")'),
  location: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .refine((v) => !/^[a-z][a-z0-9+.-]*:/i.test(v) || /^https?:\/\/\S+$/i.test(v), 'A link must start with http:// or https://; a street address is plain text')
    .nullable()
    .describe('An address or a video link (http/https), shown to the requester only once booked (extension)'),
  video: VideoSettingBody.nullable().describe('A video meeting for each booking, next to (or instead of) location; null: none (extension, docs/calendars.md "Video links")'),
  min_notice_hours: z.int().min(0).max(720).describe('No suggested time starts sooner than this many hours from now; default 0 (extension)'),
  buffer_before_minutes: BufferMinutes,
  buffer_after_minutes: BufferMinutes,
  reminder_offsets_minutes: ReminderOffsets.nullable().describe('Minutes before each meeting booked through the type at which its attendees are reminded (at most 5, 5-10080 each); null: the meeting class\'s list (docs/reliability.md "Reminders")'),
  book_instantly: z.boolean().describe('After contact verification, a time arbitration accepts without preemption is booked at once; else it waits for review. Default false (extension)'),
  repeat_weekly_max_weeks: z
    .int()
    .min(2)
    .max(52)
    .nullable()
    .describe('The requester may ask for the meeting weekly for 2 up to this many weeks, booked as one series, all or nothing (docs/public-scheduling.md "Repeating weekly"); null (default): not offered (extension)'),
  host_mode: HostMode.describe("Who hosts: single (default, the link's owner), collective (every owner of host_emails) or pool (one member of pool, picked at submission)"),
  host_emails: z.array(Email).min(2).max(20).nullable().describe('collective: 2 to 20 distinct owners of the customer, all required; the first one\'s zone lays the grid of times'),
  pool: z.string().min(1).max(200).nullable().describe("pool: the pool's id or name"),
};
export const MeetingTypeCreateBody = z.strictObject({
  slug: Slug,
  title: MeetingTypeFields.title,
  duration_minutes: MeetingTypeFields.duration_minutes,
  meeting_class: MeetingTypeFields.meeting_class,
  attendee_limit: MeetingTypeFields.attendee_limit.optional(),
  public_preempt_policy: MeetingTypeFields.public_preempt_policy.optional(),
  visibility: MeetingTypeFields.visibility.optional(),
  audience: MeetingTypeFields.audience.optional(),
  enabled: MeetingTypeFields.enabled.optional(),
  published: MeetingTypeFields.published.optional(),
  credential_skips_verification: MeetingTypeFields.credential_skips_verification.optional(),
  description: MeetingTypeFields.description.optional(),
  location: MeetingTypeFields.location.optional(),
  video: MeetingTypeFields.video.optional(),
  min_notice_hours: MeetingTypeFields.min_notice_hours.optional(),
  buffer_before_minutes: MeetingTypeFields.buffer_before_minutes.optional(),
  buffer_after_minutes: MeetingTypeFields.buffer_after_minutes.optional(),
  reminder_offsets_minutes: MeetingTypeFields.reminder_offsets_minutes.optional(),
  book_instantly: MeetingTypeFields.book_instantly.optional(),
  repeat_weekly_max_weeks: MeetingTypeFields.repeat_weekly_max_weeks.optional(),
  host_mode: MeetingTypeFields.host_mode.optional(),
  host_emails: MeetingTypeFields.host_emails.optional(),
  pool: MeetingTypeFields.pool.optional(),
});
export const MeetingTypePatchBody = MeetingTypeCreateBody.partial();
export const MeetingType = z.object({
  link_id: z.string(),
  slug: z.string(),
  title: z.string(),
  duration_minutes: z.array(z.int()),
  meeting_class: z.string(),
  attendee_limit: z.int().nullable(),
  public_preempt_policy: Policy,
  effective_preempt_policy: z.enum(['never', 'preempt_lower']).describe('What bookings through this type run with'),
  visibility: Visibility,
  audience: z.string().nullable(),
  enabled: z.boolean(),
  published: z.boolean(),
  credential_skips_verification: z.boolean(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  video: VideoSetting.nullable().describe('The video meeting each booking gets (docs/calendars.md "Video links"), or null'),
  min_notice_hours: z.int(),
  buffer_before_minutes: z.int().describe('Minutes kept free before each meeting booked through the type'),
  buffer_after_minutes: z.int().describe('Minutes kept free after each meeting booked through the type'),
  reminder_offsets_minutes: z.array(z.int()).nullable().describe("The type's reminder offsets, largest first; null: the meeting class's"),
  book_instantly: z.boolean(),
  repeat_weekly_max_weeks: z.int().nullable().describe('At most this many weeks a requester may ask for; null: repetition not offered'),
  host_mode: HostMode,
  host_emails: z.array(z.string()).describe('collective: the hosts, in order; otherwise empty'),
  pool_id: z.string().nullable().describe('pool: the pool the host is picked from; otherwise null'),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'MeetingType' });
export const MeetingTypeList = z.object({ meeting_types: z.array(MeetingType), next_cursor: Cursor });

// --- domains
export const DomainCreateBody = z.strictObject({ domain: DomainName });
export const Domain = z.object({
  domain_id: z.string(),
  domain: z.string(),
  status: z.enum(['pending', 'verified']),
  challenge: z.object({
    record_name: z.string().describe('Publish a TXT record at this name ...'),
    record_value: z.string().describe('... with exactly this value'),
  }),
  created_at: Timestamp,
  verified_at: NullableTimestamp,
}).meta({ id: 'Domain' });
export const DomainList = z.object({ domains: z.array(Domain), next_cursor: Cursor });

// --- requester identities and credentials
export const IdentityCreateBody = z.strictObject({ email: Email });
export const Identity = z.object({
  identity_id: z.string(),
  email: z.string(),
  domain: z.string().nullable().describe("The customer's verified domain of the email, if any"),
  created_at: Timestamp,
});
export const IdentityList = z.object({ requester_identities: z.array(Identity), next_cursor: Cursor });
export const MintedCredential = z.object({
  credential_id: z.string(),
  identity_id: z.string(),
  requester_credential: z.string().nullable().describe('`rc_...`, shown once; null on an idempotent replay'),
  prefix: z.string(),
  created_at: Timestamp,
});
export const RevokedCredential = z.object({ credential_id: z.string(), identity_id: z.string(), revoked_at: Timestamp });

// --- audiences
const Member = z.union([z.strictObject({ email: Email }), z.strictObject({ domain: DomainName })]);
export const AudienceCreateBody = z.strictObject({ name: AudienceName, members: z.array(Member).max(1000) });
export const AudiencePatchBody = z.strictObject({ name: AudienceName.optional(), members: z.array(Member).max(1000).optional().describe('The whole new member list') });
export const Audience = z.object({
  audience_id: z.string(),
  name: z.string(),
  members: z.array(z.union([z.object({ email: z.string() }), z.object({ domain: z.string() })])),
  created_at: Timestamp,
}).meta({ id: 'Audience' });
export const AudienceList = z.object({ audiences: z.array(Audience), next_cursor: Cursor });

// --- allocations
export const AllocationCreateBody = z.strictObject({
  link_id: Id,
  slug: z.string().min(1).max(200),
  audience: AudienceName.nullable().optional().describe('Count only bookings by this audience'),
  limit: z.int().min(1).max(100_000),
  period: Period.describe("The owner's local day, ISO week (Monday first) or calendar month"),
});
export const AllocationListQuery = z.strictObject({ ...Pagination, link_id: Id.optional() });
export const Allocation = z.object({
  allocation_id: z.string(),
  link_id: z.string(),
  slug: z.string(),
  audience: z.string().nullable(),
  limit: z.int(),
  period: Period,
  created_at: Timestamp,
});
export const AllocationList = z.object({ allocations: z.array(Allocation), next_cursor: Cursor });
