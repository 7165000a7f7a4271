import {
  confirmContact,
  linkIdFor,
  loadPublicType,
  proposalIdForToken,
  proposalStatus,
  publicSchedule,
  resolveRequester,
  submitProposal,
  suggestedTimes,
  verificationIdForToken,
  withdrawProposal,
} from '@/server/domain/publicScheduling/requester';
import type { Db } from '@/db/client';
import { defineOperation } from '../operation';
import * as S from '@/server/schemas/public';
import { rateLimitKeys } from '@/server/rateLimit/keys';

/**
 * Requester endpoints under /public (docs/public-scheduling.md "Requesters").
 * Anonymous, with an optional `Authorization: Bearer rc_...`; a bearer that
 * is not a live requester credential answers 404 not_found. Responses carry
 * only public state: no internal ids, owner rules or free/busy.
 */
const CREDENTIAL = 'An optional `Authorization: Bearer rc_...` requester credential; one that is unknown, revoked or not an rc_ token answers 404 not_found.';
/**
 * On top of the per-IP limit: 120 calls per minute per proposal (status and
 * withdraw together) or per contact verification, counted only for tokens
 * that exist (server/http/limits.ts).
 */
const proposalTokenLimit = {
  policy: 'publicProposalToken' as const,
  by: async ({ params, db }: { params: Record<string, string>; db: Db }) => {
    const id = await proposalIdForToken(db, params.token ?? '');
    return id && rateLimitKeys.proposal(id);
  },
};
const verificationTokenLimit = {
  policy: 'publicProposalToken' as const,
  by: async ({ params, db }: { params: Record<string, string>; db: Db }) => {
    const id = await verificationIdForToken(db, params.token ?? '');
    return id && rateLimitKeys.verification(id);
  },
};

export const publicScheduleOp = defineOperation({
  operationId: 'getPublicSchedule',
  method: 'GET',
  path: '/public/schedules/{id}',
  summary: 'A public link: its title, the owner name and the meeting types this requester may see',
  description: `\`id\` is the public_scheduling_boundary_id or the alias. ${CREDENTIAL}`,
  tags: ['Public'],
  auth: 'public',
  params: S.ScheduleParams,
  success: { status: 200, description: 'The schedule', schema: S.PublicSchedule },
  errors: ['not_found'],
  handler: async ({ db, params, bearer }) => ({ body: await publicSchedule(db, params.id, bearer) }),
});

export const suggestedTimesOp = defineOperation({
  operationId: 'getSuggestedTimes',
  method: 'GET',
  path: '/public/schedules/{id}/meeting-types/{slug}/suggested-times',
  summary: 'Up to 50 free times for a meeting type (default: the next 14 days; at most 31 days)',
  description: `Hidden, disabled or unpublished types, and audience types the requester is not a member of, answer 404 not_found. ${CREDENTIAL}`,
  tags: ['Public'],
  auth: 'public',
  params: S.MeetingTypeParams,
  query: S.SuggestedTimesQuery,
  success: { status: 200, description: 'Suggested times', schema: S.SuggestedTimes },
  errors: ['not_found'],
  handler: async ({ db, params, query, bearer, now }) => {
    const ctx = await loadPublicType(db, params.id, params.slug, bearer);
    return {
      body: await suggestedTimes(
        db,
        ctx,
        { durationMinutes: query.duration_minutes, from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined },
        now,
      ),
    };
  },
});

export const submitProposalOp = defineOperation({
  operationId: 'submitPublicProposal',
  method: 'POST',
  path: '/public/schedules/{id}/booking-proposals',
  summary: 'Propose a meeting: a suggested time of a meeting type, or a free-text message',
  description: `Answers status_url (keep it: status and withdraw) and contact_verification_url (mailed too). A credential of the requester's own email skips verification where the type allows it. 20 submissions per 10 minutes per client address and link (alias and id share it), on top of the per-IP limit. ${CREDENTIAL}`,
  tags: ['Public'],
  auth: 'public',
  // Keyed on the link the alias or id resolves to, so both spellings share one budget; unknown links charge only the per-IP limit.
  rateLimit: {
    policy: 'publicProposalSubmit',
    by: async ({ params, clientIp, db }) => {
      const linkId = await linkIdFor(db, params.id ?? '');
      return linkId && rateLimitKeys.submit(clientIp, linkId);
    },
  },
  params: S.ScheduleParams,
  body: S.ProposalSubmitBody,
  success: { status: 201, description: 'The proposal was received', schema: S.ProposalCreated },
  errors: ['not_found', 'attendee_limit_exceeded', 'time_unavailable'],
  handler: async ({ db, params, body, bearer, baseUrl, now }) => ({ body: await submitProposal(db, params.id, bearer, body, baseUrl, now) }),
});

export const proposalStatusOp = defineOperation({
  operationId: 'getPublicProposalStatus',
  method: 'GET',
  path: '/public/booking-proposals/{token}',
  summary: 'The status of a proposal (possession of the token is the access)',
  description: `120 calls per minute per proposal (status and withdraw together), on top of the per-IP limit. ${CREDENTIAL}`,
  tags: ['Public'],
  auth: 'public',
  rateLimit: proposalTokenLimit,
  params: S.TokenParams,
  success: { status: 200, description: 'Status', schema: S.ProposalStatus },
  errors: ['not_found'],
  handler: async ({ db, params, bearer, now }) => ({ body: await proposalStatus(db, params.token, bearer, now) }),
});

export const withdrawProposalOp = defineOperation({
  operationId: 'withdrawPublicProposal',
  method: 'POST',
  path: '/public/booking-proposals/{token}/withdraw',
  summary: 'Withdraw a pending proposal (booked, declined, withdrawn or expired ones: 409 not_pending)',
  description: CREDENTIAL,
  tags: ['Public'],
  auth: 'public',
  rateLimit: proposalTokenLimit,
  params: S.TokenParams,
  success: { status: 200, description: 'Withdrawn', schema: S.ProposalStatus },
  errors: ['not_found', 'not_pending'],
  handler: async ({ db, params, bearer, now }) => ({ body: await withdrawProposal(db, params.token, bearer, now) }),
});

export const confirmContactOp = defineOperation({
  operationId: 'confirmContactVerification',
  method: 'POST',
  path: '/public/contact-verifications/{token}/confirm',
  summary: "Confirm the requester's email: the proposal goes to the owner's review",
  description: 'No body is read (the GET page posts here from a script). A second confirm, an expired link, or a withdrawn proposal: 409 not_pending.',
  tags: ['Public'],
  auth: 'public',
  rateLimit: verificationTokenLimit,
  params: S.TokenParams,
  success: { status: 200, description: 'Confirmed', schema: S.VerificationConfirmed },
  errors: ['not_found', 'not_pending'],
  handler: async ({ db, params, bearer, baseUrl, now }) => {
    await resolveRequester(db, bearer);
    return { body: await confirmContact(db, params.token, now, baseUrl) };
  },
});
