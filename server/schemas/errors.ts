import { z } from 'zod';
import type { NotificationKind } from '@/db/schema';
import type { ErrorCode } from '@/server/domain/errorCodes';
import type { AlternativeReasonCode, NoSlotsReason, RejectReason } from '@/server/domain/scheduling';
import { CallerFields, LocalDateTime, LocalFields, Timestamp, VideoLink, Warnings } from './common';

const OptionalLocal = { start_local: LocalDateTime.optional(), end_local: LocalDateTime.optional(), ...CallerFields };

/**
 * The error envelope's parts and the agent notification items, as the
 * OpenAPI document publishes them (server/http/openapi.ts builds one
 * envelope per operation and status from these, with `error.code` an enum of
 * that operation's codes).
 */

/** Every member of a string union, checked complete at compile time. */
const every =
  <T extends string>() =>
  <const A extends readonly [T, ...T[]]>(...values: A & ([Exclude<T, A[number]>] extends [never] ? unknown : { missing: Exclude<T, A[number]> })): A =>
    values;

const ARBITRATION_REASONS = every<RejectReason | 'COUNTER_PROPOSED'>()('NO_CAPACITY', 'WORKING_HOURS', 'OFF_DAY', 'OUT_OF_OFFICE', 'SACRED_MEETING', 'MAX_DAILY_HOURS', 'PERMISSION_DENIED_PREEMPT', 'COUNTER_PROPOSED');
const ALTERNATIVE_REASON_CODES = every<AlternativeReasonCode>()('capacity_conflict', 'out_of_office', 'working_hours', 'off_day', 'daily_hours_limit', 'sacred_meeting', 'permission_denied_preempt');
const NO_SLOTS_REASONS = every<NoSlotsReason>()('NO_FREE_SLOTS', 'DAILY_HOURS_LIMIT', 'OFF_DAY', 'WORKING_HOURS', 'HARD_BLOCK', 'OUT_OF_OFFICE');

export const ArbitrationReason = z.enum(ARBITRATION_REASONS).meta({ id: 'ArbitrationReason', description: 'Why arbitration refused the slot (COUNTER_PROPOSED: alternatives[] holds slots it would accept)' });
export const Alternative = z
  .object({ start: Timestamp, end: Timestamp, ...OptionalLocal, reason_code: z.enum(ALTERNATIVE_REASON_CODES).describe('Why the requested slot failed') })
  .meta({ id: 'Alternative', description: 'A slot arbitration would accept instead' });
const Slot = z.object({ start: Timestamp, end: Timestamp, ...OptionalLocal }).meta({ id: 'Slot' });
const BookingConflict = z.object({
  kind: z.literal('booking'),
  meeting_class: z.string().nullable().describe("The booking's meeting class"),
  priority: z.int().nullable().describe("That class's priority (higher wins)"),
  sacred: z.boolean().describe('Protected: no priority moves it'),
});
const HoldConflict = z.object({ kind: z.literal('hold').describe("Someone's hold (nothing more is said)") });
const CalendarEventConflict = z.object({ kind: z.literal('calendar_event'), sacred: z.literal(true).describe('Busy time of a connected provider calendar: always sacred') });
/** What a refused slot collided with (never another agent's private details; never on /public answers). */
export const Conflict = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('hard_block'), label: z.string().nullable().describe("The hard block's label from the owner's rules (e.g. Lunch)") }),
    BookingConflict,
    HoldConflict,
    CalendarEventConflict,
    z.object({
      kind: z.literal('buffer').describe('A meeting the slot does not overlap but a buffer runs into: the requested meeting\'s own buffer, or that meeting\'s (docs/arbitration.md "Buffers")'),
      side: z.enum(['before', 'after']).describe('Where that meeting lies: before the requested start, or after its end'),
      meeting: z.discriminatedUnion('kind', [BookingConflict, HoldConflict, CalendarEventConflict]).describe('The meeting the buffer ran into, as a conflict of its own kind'),
    }),
  ])
  .meta({ id: 'Conflict', description: 'What the requested slot collided with. Working hours, working days and the daily limit are reasons (reason, reason_code), not conflicts.' });
const FieldIssue = z
  .object({ path: z.string().describe('Where the field is, e.g. body.window.start or query.cursor'), message: z.string(), code: z.string().optional().describe('Validator issue code') })
  .meta({ id: 'FieldIssue' });
const ErrorDetails = z
  .object({
    fields: z.array(FieldIssue).optional().describe('invalid_request, INVALID_SCHEDULE_RULES: each failing field'),
    record_name: z.string().optional().describe('domain_not_verified: where the TXT record must be'),
    record_value: z.string().optional().describe('domain_not_verified: the value it must have'),
  })
  .meta({ id: 'ErrorDetails' });

const NextAvailable = z
  .object({ start: Timestamp, end: Timestamp, ...OptionalLocal })
  .nullable()
  .describe('ARBITRATION_REJECTED for WORKING_HOURS or OFF_DAY, NO_SLOTS_AVAILABLE: the earliest acceptable slot within the lookahead (null: none)');

/** A group claim's refusal (docs/groups.md): each owner that refused, with its reason. */
const RefusingOwners = z
  .array(z.object({ owner_email: z.string(), reason: z.string(), conflicts: z.array(Conflict).optional() }))
  .describe('Group claims (owner_emails): each owner that refused, with its reason; alternatives suit every owner');

/** A refused occurrence of a recurring series (docs/arbitration.md "Recurring series"): the refusal a single booking of it gets, with its extras. */
const RefusedOccurrence = z
  .looseObject({ index: z.int(), start: Timestamp, end: Timestamp, start_local: LocalDateTime, end_local: LocalDateTime, code: z.string(), message: z.string(), reason: z.string().optional(), alternatives: z.array(Alternative).optional(), conflicts: z.array(Conflict).optional() })
  .meta({ id: 'RefusedOccurrence', description: 'A refused occurrence of a series, with the refusal a single booking of it gets' });
export const RefusedOccurrences = z.array(RefusedOccurrence);

/** Top-level fields beside `error` that some codes add (docs/api.md "Errors"). */
const CODE_EXTRAS: Partial<Record<ErrorCode, Record<string, z.ZodType>>> = {
  ARBITRATION_REJECTED: {
    alternatives: z.array(Alternative).describe('ARBITRATION_REJECTED: counter-proposed slots (empty on a plain reject)'),
    conflicts: z.array(Conflict).describe('ARBITRATION_REJECTED: what the requested slot collided with (hard blocks by label, bookings by class, priority and sacredness, holds, provider calendar events); empty when only working hours, working days or the daily limit refused it'),
    next_available: NextAvailable,
    warnings: Warnings,
    owners: RefusingOwners,
    refused_occurrences: RefusedOccurrences,
  },
  OUT_OF_OFFICE: {
    out_of_office: z.object({ start: z.string(), end: z.string() }).describe('OUT_OF_OFFICE: the inclusive local dates the owner is away'),
    next_available: NextAvailable,
  },
  NO_SLOTS_AVAILABLE: {
    reason_code: z.enum(NO_SLOTS_REASONS).describe('NO_SLOTS_AVAILABLE: what blocked the window'),
    next_available: NextAvailable,
    next_available_exceeds_lookahead: z.boolean().describe('NO_SLOTS_AVAILABLE: true when the first free slot lies beyond the lookahead (next_available is then absent)'),
    owners: z
      .array(
        z.union([
          z.object({ owner_email: z.string(), required: z.boolean(), reasons: z.array(z.enum(NO_SLOTS_REASONS)), free_slots: z.int() }),
          RefusingOwners.element,
        ]),
      )
      .describe('NO_SLOTS_AVAILABLE of a collective search: per owner, the reasons its rules refused slots of the window for, and how many slots it alone could take (reasons, free_slots); of a group window hold: each owner that refused, with its reason'),
    warnings: Warnings,
  },
  WINDOW_TOO_NARROW: {
    window_duration_minutes: z.int().describe('WINDOW_TOO_NARROW: the window length'),
    required_duration_minutes: z.int().describe('WINDOW_TOO_NARROW: the requested duration'),
  },
  INVALID_TIME_ZONE: { did_you_mean: z.array(z.string()).describe('INVALID_TIME_ZONE: accepted names close to the one given (may be empty); GET /v1/time-zones lists them all') },
  INVALID_MEETING_CLASS: { valid_meeting_classes: z.array(z.string()).describe('INVALID_MEETING_CLASS: the meeting class names registered for this customer') },
  LOOKAHEAD_EXCEEDS_MAXIMUM: { maximum_lookahead_hours: z.int().describe('LOOKAHEAD_EXCEEDS_MAXIMUM: the largest lookahead allowed') },
  HOLD_ALREADY_PROMOTED: { booking_id: z.string().describe('HOLD_ALREADY_PROMOTED: the booking the hold became') },
  SLOT_OUTSIDE_HOLD: {
    held_window: Slot.describe('SLOT_OUTSIDE_HOLD: the held window (the first one of an all_free hold)'),
    held_windows: z.array(Slot).describe('SLOT_OUTSIDE_HOLD on an all_free window hold: every held window; confirm a slot inside one of them'),
    duration_minutes: z.int().describe('SLOT_OUTSIDE_HOLD on a window hold: the held duration'),
  },
  attendee_limit_exceeded: { attendee_limit: z.int().describe('attendee_limit_exceeded: the most attendees allowed, counting the requester') },
};

/** A member of a group hold or booking (docs/groups.md): one claim per owner. */
export const GroupMember = z.object({ owner_email: z.string(), hold_id: z.string().optional(), booking_id: z.string().optional(), status: z.string() });

const NotificationBase = { id: z.string(), seq: z.int().describe('Grows with every item; remember the last one and read GET /v1/notifications?since=<seq> to recover any you missed'), created_at: Timestamp };
/** Who caused an event (docs/webhooks.md "Payload"): on every notification and webhook event. */
const EventActor = z
  .object({
    kind: z.enum(['agent', 'owner', 'requester', 'system']),
    agent_id: z.string().optional().describe('kind agent: the agent (yours: an own event)'),
    email: z.string().optional().describe('kind owner or requester'),
  })
  .meta({ id: 'EventActor', description: 'Who caused the event; system: no one (an expiry, a disabled endpoint)' });
const notificationKind = <K extends NotificationKind, D extends z.ZodObject>(kind: K, description: string, data: D) =>
  z.object({ ...NotificationBase, kind: z.literal(kind), data: data.extend({ actor: EventActor }) }).meta({ id: `Notification_${kind.replace('.', '_')}`, description });
const NOTIFICATION_ITEMS = [
  notificationKind('hold.expired', 'One of your holds passed its time to live', z.object({ hold_id: z.string(), start: Timestamp, end: Timestamp, expired_at: Timestamp.optional() })),
  notificationKind(
    'booking.preempted',
    'A higher-priority meeting pushed aside your booking or hold',
    z.object({
      booking_id: z.string().optional().describe('When claim_kind is booking'),
      hold_id: z.string().optional().describe('When claim_kind is hold'),
      claim_kind: z.enum(['booking', 'hold']),
      owner_email: z.string(),
      start: Timestamp,
      end: Timestamp,
      preempted_by_meeting_class: z.string(),
      reason: z.string().describe('Why, in words (e.g. which meeting the owner approved in its place)'),
      group_id: z.string().optional().describe('A group claim: the whole group gave way; one item names every member'),
      members: z.array(GroupMember).optional().describe('A group claim: every member released'),
      video: VideoLink.optional(),
      replacement_hold: z
        .object({ id: z.string(), start: Timestamp, end: Timestamp, expires_at: Timestamp })
        .nullable()
        .optional()
        .describe('on_preempted hold_nearest: the hold placed for you, or null; absent otherwise'),
    }),
  ),
  notificationKind(
    'booking.cancelled',
    'Another agent, the owner in the dashboard or the requester cancelled your booking (or you did: an own event, read with include_own)',
    z.object({
      booking_id: z.string(),
      owner_email: z.string(),
      start: Timestamp,
      end: Timestamp,
      ...LocalFields,
      reason: z.string().nullable(),
      group_id: z.string().optional().describe('A group booking: cancelled whole'),
      series_id: z.string().optional().describe('An occurrence of a recurring series'),
      cancelled_by: z.enum(['requester']).optional().describe('The requester cancelled it on the public booking page'),
      video: VideoLink.optional(),
    }),
  ),
  notificationKind(
    'booking.rescheduled',
    'Another agent, the owner or the requester moved your booking (same booking_id; or you did: an own event, read with include_own)',
    z.object({
      booking_id: z.string(),
      owner_email: z.string(),
      from: z.object({ start: Timestamp, end: Timestamp, ...LocalFields }),
      to: z.object({ start: Timestamp, end: Timestamp, ...LocalFields }),
      moved_by: z.object({ kind: z.enum(['agent', 'owner', 'requester']), agent_id: z.string().optional(), email: z.string().optional() }),
      reason: z.string().nullable(),
      group_id: z.string().optional().describe('A group booking: every member moved together; one item per member'),
      video: VideoLink.optional(),
    }),
  ),
  notificationKind(
    'booking.reminder',
    'A reminder of your booking went out to its attendees (docs/reliability.md "Reminders"): offset_minutes before its start',
    z.object({
      booking_id: z.string(),
      owner_email: z.string(),
      meeting_class: z.string().nullable(),
      title: z.string().nullable(),
      start: Timestamp,
      end: Timestamp,
      ...LocalFields,
      offset_minutes: z.int().describe('Minutes before the start the reminder was due'),
      due_at: Timestamp,
      recipients: z.array(z.string()).describe('Who was mailed (the attendees and a public requester)'),
      group_id: z.string().optional().describe('A group booking: one item per member'),
      video: VideoLink.optional(),
    }),
  ),
  notificationKind(
    'proposal.reviewed',
    'The owner reviewed a proposal you created',
    z.object({
      proposal_id: z.string(),
      status: z.enum(['booked', 'declined']),
      owner_email: z.string(),
      booking_id: z.string().optional().describe('When booked'),
      start: Timestamp.optional().describe('When booked'),
      end: Timestamp.optional().describe('When booked'),
      reason: z.string().nullable().optional().describe('When declined'),
      video: VideoLink.optional(),
    }),
  ),
  notificationKind(
    'booking.approved',
    "The owner approved your booking that their approval policy held (POST /v1/bookings answered 202 pending_approval): the hold became this booking",
    z.object({
      proposal_id: z.string(),
      booking_id: z.string(),
      hold_id: z.string(),
      owner_email: z.string(),
      meeting_class: z.string(),
      start: Timestamp,
      end: Timestamp,
      ...LocalFields,
      approved_by: z.object({ email: z.string() }).describe('The owner who approved'),
      video: VideoLink.optional(),
    }),
  ),
  notificationKind(
    'waitlist.offered',
    'Time freed up for one of your waitlist entries: a hold on it is yours until expires_at; confirm it as any hold (POST /v1/bookings/{hold_id}/confirm) or release it',
    z.object({ waitlist_id: z.string(), hold_id: z.string(), owner_email: z.string(), meeting_class: z.string(), start: Timestamp, end: Timestamp, expires_at: Timestamp }),
  ),
  notificationKind(
    'booking.declined',
    'The owner declined your booking that their approval policy held: the hold on the time was released',
    z.object({
      proposal_id: z.string(),
      hold_id: z.string(),
      owner_email: z.string(),
      meeting_class: z.string(),
      start: Timestamp,
      end: Timestamp,
      ...LocalFields,
      reason: z.string().nullable(),
      declined_by: z.object({ email: z.string() }).describe('The owner who declined'),
    }),
  ),
  notificationKind(
    'webhook.disabled',
    'One of your webhook endpoints was disabled after too many consecutive failed deliveries (re-enable it with PATCH /v1/webhooks/{id})',
    z.object({ webhook_id: z.string(), url: z.string(), consecutive_failures: z.int(), reason: z.string() }),
  ),
] as const;
// Every kind the database may hold has its item schema.
type _AllKinds = [Exclude<NotificationKind, (typeof NOTIFICATION_ITEMS)[number]['shape']['kind']['value']>] extends [never] ? true : never;
const _allKinds: _AllKinds = true;
void _allKinds;

export const Notification = z.discriminatedUnion('kind', NOTIFICATION_ITEMS).meta({ id: 'Notification', description: 'An agent notification; `data` depends on `kind`' });

/** The error envelope of one response: `error.code` is one of `codes`; the top-level extras are those of these codes. */
export function errorEnvelopeFor(codes: readonly [string, ...string[]], catalogued: readonly ErrorCode[]) {
  const extras: Record<string, z.ZodType> = {};
  for (const code of catalogued) for (const [k, v] of Object.entries(CODE_EXTRAS[code] ?? {})) extras[k] ??= v.optional();
  // (the meaning of code, message and pending_notifications is said once, in the document's description)
  return z.object({
    error: z.object({
      code: z.enum(codes),
      message: z.string(),
      ...(catalogued.includes('ARBITRATION_REJECTED') ? { reason: ArbitrationReason.optional() } : {}),
      details: ErrorDetails.optional(),
    }),
    pending_notifications: z.array(Notification),
    ...extras,
  });
}
