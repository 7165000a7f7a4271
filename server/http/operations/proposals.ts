import { createAgentProposal, getAgentProposal } from '@/server/domain/publicScheduling/review';
import { defineOperation, ownerCall } from '../operation';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/public';

export const createAgentProposalOp = defineOperation({
  operationId: 'createBookingProposal',
  method: 'POST',
  path: '/v1/booking-proposals',
  summary: "Ask the owner instead of booking: up to 5 candidates go to the owner's review",
  description: 'The outcome arrives as a proposal.reviewed notification; GET the proposal for its status and booking_id.',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_proposals',
  body: S.AgentProposalBody,
  scope: { of: ({ body }) => ownerCall(body.owner_email) },
  success: { status: 201, description: 'The proposal, pending review', schema: S.AgentProposal },
  errors: ['NO_SLOTS_AVAILABLE', 'WINDOW_TOO_NARROW', 'PAST_TIME', 'INVALID_MEETING_CLASS', 'OWNER_NOT_FOUND', 'CALENDAR_NOT_FOUND', 'CALENDAR_REAUTH_REQUIRED', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail, body, baseUrl, now }) => ({
    body: await createAgentProposal(
      db,
      actor,
      {
        ownerEmail,
        meetingClass: body.meeting_class,
        durationMinutes: body.duration_minutes,
        window: { start: new Date(body.window.start), end: new Date(body.window.end) },
        attendees: body.attendees,
        message: body.message,
        title: body.title,
      },
      now,
      baseUrl,
    ),
  }),
});

export const getAgentProposalOp = defineOperation({
  operationId: 'getBookingProposal',
  method: 'GET',
  path: '/v1/booking-proposals/{id}',
  summary: "An agent proposal's status, candidates and, once booked, booking_id (also a booking held for approval: the proposal_id of its 202)",
  tags: ['Scheduling'],
  auth: 'api_key',
  // create_bookings too: a booking an approval policy held is read back here (docs/api.md "Approval policies").
  permission: ['create_proposals', 'create_bookings'],
  params: IdParams,
  success: { status: 200, description: 'The proposal', schema: S.AgentProposal },
  errors: ['PROPOSAL_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params }) => ({ body: await getAgentProposal(db, actor, params.id) }),
});
