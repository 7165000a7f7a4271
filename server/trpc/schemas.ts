import { z } from 'zod';
import { UtcDateTime } from '@/server/schemas/common';
import { CancelBody } from '@/server/schemas/scheduling';

/** Inputs of the dashboard's proposal procedures; the review page's forms validate with the same schemas. */
export const ApproveProposalInput = z.strictObject({
  proposal_id: z.string().min(1).max(64),
  start: UtcDateTime.optional().describe('Default: the requested time, else the first candidate'),
  end: UtcDateTime.optional(),
  meeting_class: z.string().min(1).max(100).optional().describe("Default: the proposal's; required for a free-text request"),
  confirm_preemption: z
    .array(z.string().min(1).max(64))
    .max(50)
    .optional()
    .describe('The meetings (ids) the owner agreed to cancel for this time; any other that would give way refuses the approval (PREEMPTION_NOT_CONFIRMED)'),
});

/** What approving at these times would do (free, preempting what, refused): the review page's decision panel. */
export const ApprovalVerdictsQuery = z.strictObject({
  proposal_id: z.string().min(1).max(64),
  meeting_class: z.string().min(1).max(100).optional(),
  times: z.array(z.strictObject({ start: UtcDateTime, end: UtcDateTime })).max(50),
});

export const DeclineProposalInput = z.strictObject({
  proposal_id: z.string().min(1).max(64),
  reason: z.string().max(1000, 'Keep the reason under 1000 characters').optional(),
});

/** Times to approve a proposal at (the review page's free-text choice): class and length, both optional. */
export const ApprovalTimesQuery = z.strictObject({
  proposal_id: z.string().min(1).max(64),
  meeting_class: z.string().min(1).max(100).optional(),
  duration_minutes: z.int('Give the length in whole minutes').min(5, 'At least 5 minutes').max(480, 'At most 480 minutes (8 hours)').optional(),
});

/** The owner cancels a booking from its details: the reason goes to its agent and attendees. */
export const MoveBookingInput = z.strictObject({
  booking_id: z.string().min(1).max(64),
  start: z.iso.datetime({ offset: true }),
  end: z.iso.datetime({ offset: true }),
  reason: z.string().trim().max(1000, 'Keep the reason under 1000 characters').optional(),
  confirm_preemption: z.array(z.string().max(64)).max(50).optional().describe('The ids of the meetings the owner agreed to move aside'),
});
export const CancelBookingInput = z.strictObject({
  booking_id: z.string().min(1).max(64),
  reason: z.string().trim().min(1, 'Say why, so the attendees know').max(1000, 'Keep the reason under 1000 characters'),
  /** An occurrence of a recurring series: it (default), it and the later ones, or all (as on POST /v1/bookings/{id}/cancel). */
  scope: CancelBody.shape.scope,
});
