import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS } from '@/db/schema';
import { CallerZoneQuery, Email, LocalFields, Pagination, NullableTimestamp, Timestamp, UtcDateTime, VideoLink, VideoSetting, VideoSettingBody, Warnings } from './common';
import { Alternative, ArbitrationReason, Conflict, GroupMember, Notification, RefusedOccurrences } from './errors';
import { PoolAssignment, PoolRef } from './pools';

/** The query of a call whose answer carries start_local/end_local and takes nothing else there (docs/api.md "The caller's time zone"). */
export const CallerZone = z.strictObject(CallerZoneQuery);
const Duration = z.int().min(5).max(480);
const Interval = z.strictObject({ start: UtcDateTime, end: UtcDateTime });
const IsoInterval = z.object({ start: Timestamp, end: Timestamp, ...LocalFields });
const MeetingClassName = z.string().min(1).max(100);
const CalendarType = z.string().min(1).max(40);
const Attendees = z.array(z.strictObject({ email: Email, name: z.string().min(1).max(200).optional() })).max(50);

export const AvailabilitySearchBody = z.strictObject({
  owner_email: Email.optional(),
  // Collective search (docs/groups.md); described in the operation's description, not per field, to keep the MCP tools/list small.
  owner_emails: z.array(Email).min(2).max(20).optional(),
  pool: PoolRef.optional(),
  optional_owner_emails: z.array(Email).max(20).optional(),
  min_optional: z.int().min(0).max(20).optional(),
  meeting_class: MeetingClassName,
  duration_minutes: Duration,
  // Described in the operation's description (and the MCP tool's), not per field: the MCP tools/list is capped at 12 KB.
  window: Interval.optional(),
  windows: z.array(Interval).min(1).max(14).optional(),
  distinct: z.boolean().optional(),
  max_per_day: z.int().min(1).max(96).optional(),
  calendar_type: CalendarType.optional(),
  slot_step_minutes: z.int().min(5).max(60).optional(),
  max_results: z.int().min(1).max(500).optional(),
  next_available_lookahead_hours: z.int().min(1).max(100_000).optional().meta({ maximum: 72 }), // documented as the server's limit
})
  .refine((b) => (b.window === undefined) !== (b.windows === undefined), { message: 'give exactly one of window and windows', path: ['window'] })
  .refine((b) => b.owner_email === undefined || b.owner_emails === undefined, { message: 'give owner_email or owner_emails, not both', path: ['owner_emails'] })
  .refine((b) => !(b.pool && (b.owner_email || b.owner_emails)), { message: 'give owner_email, owner_emails or pool, not several', path: ['pool'] })
  .refine((b) => b.owner_emails !== undefined || (b.optional_owner_emails === undefined && b.min_optional === undefined), {
    message: 'optional_owner_emails and min_optional need owner_emails',
    path: ['optional_owner_emails'],
  });
const LocalPair = z.object(LocalFields);
export const AvailabilityResult = z.object({
  owner_email: z.string().describe('The owner searched (collective: the first of owner_emails, whose zone start_local uses)'),
  time_zone: z.string(),
  owners: z.array(z.object({ owner_email: z.string(), time_zone: z.string(), required: z.boolean() })).optional().describe('Collective search: every owner, required then optional'),
  slots: z.array(
    z.object({
      start: Timestamp,
      end: Timestamp,
      ...LocalFields,
      preempts: z.boolean(),
      local: z.record(z.string(), LocalPair).optional().describe('Collective search: each owner\'s local times, by email'),
      free_optional: z.array(z.string()).optional().describe('Collective search: the optional owners free then (slots ranked by their number, then time)'),
    }),
  ),
  warnings: Warnings,
});

/** A group claim (docs/groups.md): 2 to 20 owners instead of owner_email, all or none. */
const OwnerEmails = z.array(Email).min(2).max(20).optional();
const GroupFields = {
  group_id: z.string().optional().describe('Group claims: shared by every member'),
  members: z.array(GroupMember).optional().describe('Group claims: one per owner'),
};

/** A recurring series (docs/arbitration.md "Recurring series"): POST /v1/bookings and POST /v1/holds (a candidate hold). */
const SeriesFields = {
  recurrence: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .meta({ id: 'Recurrence', description: 'RRULE of a series from start, owner-local (FREQ DAILY/WEEKLY/MONTHLY, INTERVAL, BYDAY, BYMONTHDAY; COUNT<=52 or UNTIL<=1y); bookings: also owner_emails or pool' }),
  min_occurrences: z.int().optional().meta({ id: 'MinOccurrences', description: 'With recurrence: claim those accepted if at least this many (default: all or none)' }),
};
/** An act on an occurrence of a series: it alone (default), it and the later ones, or all of them. */
const Scope = z.enum(['occurrence', 'following', 'series']).optional().meta({ id: 'SeriesScope', description: 'A series occurrence: it (default), it and later ones, or all' });
export const ReleaseQuery = z.strictObject({ ...CallerZoneQuery, scope: Scope });

const TtlSeconds = z.int().min(10).max(3600);
export const HoldExtendBody = z.strictObject({ ttl_seconds: TtlSeconds.describe('New time to live, counted from now') });
const HoldCommon = {
  owner_email: Email.optional(),
  pool: PoolRef.optional(),
  owner_emails: OwnerEmails,
  calendar_type: CalendarType.optional(),
  meeting_class: MeetingClassName,
  ttl_seconds: TtlSeconds.optional().describe('Default 600'),
  ...SeriesFields,
};
export const HoldCreateBody = z.discriminatedUnion('hold_scope', [
  z.strictObject({ ...HoldCommon, hold_scope: z.literal('candidate'), candidate: Interval }),
  z.strictObject({
    ...HoldCommon,
    hold_scope: z.literal('window'),
    duration_minutes: Duration,
    window: Interval,
    coverage: z.enum(['first_fit', 'all_free']).optional(),
  }),
]);
/**
 * A series made (POST /v1/bookings or /v1/holds with recurrence), confirmed or moved with a scope:
 * its occurrences claimed and refused. recurrence, occurrences_requested, min_occurrences and each
 * occurrence's index come on creation only (docs/api.md "Recurring series").
 */
function seriesOf<L extends 'bookings' | 'holds'>(list: L, id: L extends 'holds' ? 'hold_id' : 'booking_id') {
  const item = z.object({ index: z.int().optional(), [id]: z.string(), owner_email: z.string().optional(), start: Timestamp, end: Timestamp, ...LocalFields });
  return z
    .object({
      series_id: z.string(),
      recurrence: z.string().optional(),
      occurrences_requested: z.int().optional(),
      min_occurrences: z.int().optional(),
      [list]: z.array(item),
      refused_occurrences: RefusedOccurrences,
    } as { series_id: z.ZodString; recurrence: z.ZodOptional<z.ZodString>; occurrences_requested: z.ZodOptional<z.ZodInt>; min_occurrences: z.ZodOptional<z.ZodInt>; refused_occurrences: typeof RefusedOccurrences } & Record<L, z.ZodArray<typeof item>>)
    .meta({ id: list === 'holds' ? 'HoldSeries' : 'BookingSeries' });
}
export const Hold = z.object({
  hold_id: z.string(),
  hold_scope: z.enum(['candidate', 'window']),
  held_window: IsoInterval.describe('The held range (of an all_free hold: the first of held_windows)'),
  held_windows: z.array(IsoInterval).describe('Every range the hold claims, by start: one, except for an all_free window hold'),
  coverage: z.enum(['first_fit', 'all_free']).optional().describe('Window holds: how the window was held'),
  ...LocalFields,
  duration_minutes: z.int(),
  expires_at: Timestamp,
  expires_in_seconds: z.int().describe('Remaining time to live; use it for expiry checks'),
  resolved_calendar_type: z.string(),
  owner_email: z.string(),
  meeting_class: z.string(),
  status: z.enum(['active', 'promoted', 'expired', 'released', 'preempted']),
  booking_id: z.string().nullable(),
  warnings: Warnings,
  assignment: PoolAssignment.optional(),
  series_id: z.string().optional(),
  series: seriesOf('holds', 'hold_id').optional(),
  ...GroupFields,
}).meta({ id: 'Hold' });

const BookingDetails = {
  attendees: Attendees.optional(),
  title: z.string().min(1).max(300).optional(),
  description: z.string().max(5000).optional(),
};
export const ConfirmBody = z.strictObject({
  start: UtcDateTime,
  end: UtcDateTime,
  meeting_class: MeetingClassName.optional().describe("Defaults to the hold's class"),
  ...BookingDetails,
  video: VideoSettingBody.optional(),
  scope: Scope,
});
export const BookingCreateBody = z.strictObject({
  owner_email: Email.optional(),
  pool: PoolRef.optional(),
  owner_emails: OwnerEmails,
  calendar_type: CalendarType.optional(),
  meeting_class: MeetingClassName,
  start: UtcDateTime,
  end: UtcDateTime,
  ...BookingDetails,
  video: VideoSettingBody.optional(),
  ...SeriesFields,
  pool_member: z.enum(['same', 'per_occurrence']).optional().describe('With pool: one member (default) or each time'),
});
export const BookingPatchBody = z
  .strictObject({
    title: z.string().min(1).max(300).nullable().optional(),
    description: z.string().max(5000).nullable().optional(),
    attendees: Attendees.optional(),
  })
  .refine((b) => b.title !== undefined || b.description !== undefined || b.attendees !== undefined, { message: 'give at least one of title, description and attendees', path: ['title'] });
export const CancelBody = z.strictObject({
  reason: z.string().max(1000).optional(),
  scope: Scope,
});
export const RescheduleBody = z.strictObject({
  start: UtcDateTime,
  end: UtcDateTime,
  reason: z.string().max(1000).optional(),
  scope: Scope,
});
export const Booking = z.object({
  booking_id: z.string(),
  hold_id: z.string().nullable(),
  owner_email: z.string(),
  meeting_class: z.string().nullable(),
  start: Timestamp,
  end: Timestamp,
  ...LocalFields,
  status: z.enum(['confirmed', 'cancelled', 'preempted']),
  calendar_type: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  attendees: z.array(z.object({ email: z.string(), name: z.string().nullable(), response: z.string() })),
  created_at: Timestamp,
  preempted_booking_ids: z.array(z.string()),
  preempted_claims: z.array(z.object({ id: z.string(), kind: z.enum(['hold', 'booking']) })).describe('What this booking pushed aside, with its kind (a hold id is looked up under /v1/holds)'),
  warnings: Warnings,
  video: VideoLink.optional().describe('Its video link, when booked through a meeting type with one (docs/calendars.md "Video links")'),
  assignment: PoolAssignment.optional(),
  series_id: z.string().optional().describe('An occurrence of a recurring series'),
  series: seriesOf('bookings', 'booking_id').optional(),
  ...GroupFields,
}).meta({ id: 'Booking' });


/** POST /v1/bookings answered 202: an owner's approval policy holds the booking for their decision (docs/api.md "Approval policies"). */
export const PendingApproval = z
  .object({
    status: z.literal('pending_approval'),
    proposal_id: z.string().describe('The request in the owner\'s inbox: GET /v1/booking-proposals/{proposal_id} reads its state (pending_review, booked with booking_id, declined)'),
    hold_id: z.string().describe('The hold on the time while the owner decides (GET /v1/holds/{hold_id}); approval promotes it, decline releases it'),
    owner_email: z.string(),
    meeting_class: z.string(),
    start: Timestamp,
    end: Timestamp,
    ...LocalFields,
    expires_at: Timestamp.describe("The hold lasts until the meeting's start"),
    title: z.string().nullable(),
    video: VideoSetting.optional().describe('The video link asked for: kept with the request, made when the owner approves (docs/calendars.md "Video links")'),
    warnings: Warnings,
    assignment: PoolAssignment.optional(),
  })
  .meta({ id: 'PendingApproval' });

export const EvaluateBody = z.strictObject({
  owner_email: Email.optional(),
  meeting_class: MeetingClassName,
  start: UtcDateTime,
  end: UtcDateTime,
  calendar_type: CalendarType.optional(),
});
export const EvaluateResult = z.object({
  outcome: z.enum(['accept', 'reject', 'counter_propose']),
  reason: z.union([ArbitrationReason, z.literal('PAST_TIME')]).optional(),
  alternatives: z.array(Alternative),
  conflicts: z.array(Conflict).optional().describe('reject and counter_propose: what the slot collides with'),
  would_preempt: z.array(z.string()),
  warnings: Warnings,
});

export const NotificationsQuery = z.strictObject({
  since: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Items after this seq, delivered or not (kept 7 days); does not drain'),
  ...CallerZoneQuery,
  include_own: z.enum(['true', 'false']).optional().describe("With since: also this agent's own changes (docs/webhooks.md \"Own events\")"),
});
export const NotificationsResult = z.object({
  notifications: z.array(Notification),
});

export { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS };

/** The message of a reversed range, on `from` (the same words in the dashboard's form and in the 400). */
const REVERSED_RANGE_MESSAGE = 'from must not be after to';
/** `from` is not after `to` (instants or YYYY-MM-DD dates, compared as instants). */
const rangeInOrder = (v: { from?: string; to?: string }): boolean => !(v.from && v.to && Date.parse(v.from) > Date.parse(v.to));
const ORDERED_RANGE = { path: ['from'], message: REVERSED_RANGE_MESSAGE };

/** The audit log's filters (GET /v1/audit-log, admin.audit.query adds agent ids); a reversed range is refused. */
const AuditQueryFields = z.strictObject({
  owner_email: Email.optional(),
  from: UtcDateTime.optional(),
  to: UtcDateTime.optional(),
  outcome: z.enum(['accept', 'reject', 'counter_propose', 'denied']).optional().describe('denied: a request refused for a missing permission or outside the owner scope (action request.denied, reason the code)'),
  action: z.enum(AUDIT_ACTIONS).optional().describe('One action (docs/api.md "Audit log" lists who writes each)'),
  actor_kind: z.enum(AUDIT_ACTOR_KINDS).optional().describe('Only what this kind of actor did: agent, owner (in the dashboard), requester (public booking pages) or system'),
  agent_id: z.string().min(1).max(64).optional().describe('`me` or an agent id: only what that agent did (its refusals included)'),
  ...Pagination,
});
export const AuditQuery = AuditQueryFields.refine(rangeInOrder, ORDERED_RANGE);
/** The dashboard's audit filter dates (YYYY-MM-DD in the owner's zone, `to` inclusive): the same order rule as AuditQuery. */
export const AuditDateRange = z.object({ from: z.iso.date().optional(), to: z.iso.date().optional() }).refine(rangeInOrder, ORDERED_RANGE);
export const AuditResult = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: Timestamp,
      agent_id: z.string().nullable(),
      owner_email: z.string().nullable(),
      action: z.enum(AUDIT_ACTIONS),
      outcome: z.string(),
      reason: z.string().nullable(),
      meeting_class: z.string().nullable(),
      start: NullableTimestamp,
      end: NullableTimestamp,
      hold_id: z.string().nullable(),
      booking_id: z.string().nullable(),
      preempted_booking_ids: z.array(z.string()),
      idempotency_key: z.string().nullable(),
      actor_kind: z.enum(AUDIT_ACTOR_KINDS).describe('Who acted: agent (agent_id), owner (actor_owner_email), requester (actor_requester_email) or system'),
      actor_owner_email: z.string().nullable().describe('The owner who acted through the dashboard; null when an agent (agent_id), a requester or the system acted'),
      actor_requester_email: z.string().nullable().describe('The public requester who acted (their verified or given contact email); null otherwise'),
      details: z.record(z.string(), z.unknown()).nullable().describe('What an administrative change changed; for decisions, alternatives or the held window'),
    }),
  ),
  next_cursor: z.string().nullable(),
});

/** GET /v1/holds and GET /v1/bookings (docs/api.md "Reading back"). */
const ClaimListFilters = {
  owner_email: Email.optional(),
  from: UtcDateTime.optional().describe('Ending after'),
  to: UtcDateTime.optional().describe('Starting before'),
  agent: z.union([z.literal('me'), z.string().min(1).max(64)]).optional().describe('`me` or an agent id'),
  ...Pagination,
  ...CallerZoneQuery,
};
export const HoldListQuery = z.strictObject({ ...ClaimListFilters, status: Hold.shape.status.optional() });
export const BookingListQuery = z.strictObject({ ...ClaimListFilters, status: Booking.shape.status.optional() });
export const HoldList = z.object({ holds: z.array(Hold), next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end') });
export const BookingList = z.object({ bookings: z.array(Booking), next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end') });

/** A booking's reminder (docs/reliability.md "Reminders"). */
const Reminder = z
  .object({
    offset_minutes: z.int().describe('Minutes before the start'),
    due_at: Timestamp,
    status: z.enum(['pending', 'sent', 'skipped']).describe('skipped: the meeting had begun before it could go out (after an outage)'),
    sent_at: NullableTimestamp,
  })
  .meta({ id: 'Reminder' });
export const BookingReminders = z.object({ booking_id: z.string(), reminders: z.array(Reminder).describe('Earliest due first; a cancelled booking keeps only those already sent') });
