import { z } from 'zod';
import { CallerZoneQuery, Email, LocalFields, Timestamp, UtcDateTime } from './common';

/** Requester-facing shapes (docs/public-scheduling.md "Requesters"). */

const Duration = z.int().min(5).max(480);
const Interval = z.strictObject({ start: UtcDateTime, end: UtcDateTime });
const IsoInterval = z.object({ start: Timestamp, end: Timestamp });
const Name = z.string().trim().min(1, 'must not be empty').max(200);

export const ScheduleParams = z.strictObject({ id: z.string().min(1).max(64).describe('public_scheduling_boundary_id or the link alias') });
export const MeetingTypeParams = z.strictObject({ id: ScheduleParams.shape.id, slug: z.string().min(1).max(64) });
export const TokenParams = z.strictObject({ token: z.string().min(1).max(128) });

export const PublicSchedule = z.object({
  title: z.string().nullable(),
  owner_name: z.string().nullable(),
  meeting_types: z.array(z.object({ slug: z.string(), title: z.string(), duration_minutes: z.array(z.int()) })),
});

export const SuggestedTimesQuery = z.strictObject({
  duration_minutes: z.coerce.number().int().min(5).max(480).optional().describe("One of the type's durations; default its shortest"),
  from: UtcDateTime.optional().describe('Default now'),
  to: UtcDateTime.optional().describe('Default from + 14 days; at most 31 days after from'),
  time_zone: CallerZoneQuery.time_zone.describe("IANA zone (the requester's) for start_caller/end_caller beside the host's start_local/end_local"),
});
export const SuggestedTimes = z.object({
  suggested_times: z
    .array(z.object({ start: Timestamp, end: Timestamp, ...LocalFields }))
    .max(50)
    .describe("Free times to propose; start_local/end_local are the same instants on the host's clock, with its UTC offset"),
});

/** The zone the booking pages show times in, sent with a page's submission so the requester's mail uses it (an IANA name; unknown names fall back to the owner's zone). */
export const RequesterTimeZone = z.string().min(1).max(64);

/** The status page's "Cancel this meeting" (docs/public-scheduling.md "Status page"). */
export const CancelMeetingInput = z.object({
  reason: z.string().trim().max(1000, 'Please keep the reason under 1000 characters').optional(),
});

/** The status page's "Ask to move": the note the owner reads with the request (docs/public-scheduling.md "Asking to move"). */
export const MoveRequestNote = z.object({
  note: z.string().trim().max(1000, 'Please keep the note under 1000 characters').optional(),
});

/** At most this many `attendees` items on a public proposal, the requester not counted (docs/public-scheduling.md "Submitting"). */
export const MAX_PROPOSAL_ATTENDEES = 50;

export const ProposalSubmitBody = z.strictObject({
  requester_contact: z.strictObject({ email: Email, name: Name.optional() }),
  attendees: z
    .array(z.strictObject({ email: Email, name: Name.optional() }))
    .max(500)
    .describe("More than 50 items, or more people than the meeting type's own attendee_limit (which counts the requester), answers attendee_limit_exceeded")
    .meta({ maxItems: MAX_PROPOSAL_ATTENDEES }), // documented as the server's limit
  public_meeting_type: z.string().min(1).max(64).optional().describe('Structured request: the type slug (with duration_minutes and requested_window)'),
  duration_minutes: Duration.optional(),
  requested_window: Interval.extend({
    // A suggested time may be sent back as it came: its local twins are accepted and ignored.
    start_local: UtcDateTime.optional().describe('Ignored (a suggested time may be sent back unchanged)'),
    end_local: UtcDateTime.optional().describe('Ignored'),
  })
    .optional()
    .describe('Structured request: exactly one of the suggested times (start and end; any RFC 3339 offset)'),
  reason: z.string().max(1000).optional(),
  message: z.string().max(5000).optional().describe('Free-text request (no public_meeting_type): required'),
  repeat_weeks: z
    .int()
    .min(2)
    .max(52)
    .optional()
    .describe(
      'Structured request on a type that offers it (repeat_weekly_max_weeks): the meeting every week at the same local time, this many meetings in all, booked together or not at all. Every week must be free now, else 409 time_unavailable with unavailable_occurrences (extension, docs/public-scheduling.md "Repeating weekly")',
    ),
});
export const ProposalCreated = z.object({
  status: z.enum(['pending_requester_verification', 'pending_review']),
  status_url: z.string(),
  contact_verification_url: z.string().optional().describe('Absent when a requester credential skipped verification'),
});

export const ProposalStatus = z.object({
  status: z.enum(['pending_requester_verification', 'pending_review', 'booked', 'declined', 'withdrawn', 'expired', 'cancelled']).describe('cancelled: booked, then cancelled by the requester (an extension, docs/public-scheduling.md)'),
  updated_at: Timestamp.describe('UTC, millisecond precision'),
});

export const VerificationConfirmed = z.object({ status: z.enum(['pending_review', 'booked']).describe('booked: the meeting type books instantly and the time was free (an extension, docs/public-scheduling.md "Booking instantly")') });

/** Agent proposals (docs/public-scheduling.md "Agent proposals"). */
export const AgentProposalBody = z.strictObject({
  owner_email: Email.optional(),
  meeting_class: z.string().min(1).max(100),
  duration_minutes: Duration,
  window: Interval,
  title: z.string().trim().min(1).max(300).optional().describe("The meeting's title; the booking made on approval keeps it (default: the class with the first attendee)"),
  attendees: z.array(z.strictObject({ email: Email, name: Name.optional() })).max(50),
  message: z.string().max(5000).optional(),
});
export const AgentProposal = z.object({
  proposal_id: z.string(),
  status: ProposalStatus.shape.status,
  candidates: z.array(IsoInterval),
  booking_id: z.string().optional().describe('Present once booked'),
  warnings: z.array(z.string()).optional(),
}).meta({ id: 'AgentProposal' });

const LocalTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM');

/**
 * A public page's "Join the waitlist" (docs/public-scheduling.md "Waitlist"): one of the type's
 * lengths, a day in the requester's zone, optionally the hours of it (both or neither), name and email.
 */
export const WaitlistJoinForm = z
  .strictObject({
    duration_minutes: Duration,
    date: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be YYYY-MM-DD'),
    from: LocalTime.optional(),
    to: LocalTime.optional(),
    name: Name.optional(),
    email: Email,
  })
  .refine((v) => (v.from === undefined) === (v.to === undefined), { path: ['to'], message: 'give both times, or neither' })
  .refine((v) => v.from === undefined || v.to === undefined || v.to > v.from, { path: ['to'], message: 'must be after from' });
