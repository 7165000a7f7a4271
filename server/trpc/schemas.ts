import { z } from 'zod';
import { UtcDateTime } from '@/server/schemas/common';

/** Inputs of the dashboard's proposal procedures; the review page's forms validate with the same schemas. */
export const ApproveProposalInput = z.strictObject({
  proposal_id: z.string().min(1).max(64),
  start: UtcDateTime.optional().describe('Default: the requested time, else the first candidate'),
  end: UtcDateTime.optional(),
  meeting_class: z.string().min(1).max(100).optional().describe("Default: the proposal's; required for a free-text request"),
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
