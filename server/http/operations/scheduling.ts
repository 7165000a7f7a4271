import {
  bookingClaim,
  bookingOwner,
  cancelClaim,
  confirmClaim,
  evaluateBooking,
  extendHold,
  getBooking,
  getHold,
  groupBookingClaim,
  groupSeriesBookingClaim,
  holdClaim,
  releaseClaim,
  rescheduleClaim,
  runAnsweredClaim,
  searchAvailability,
  searchGroupAvailability,
  seriesBookingClaim,
  seriesConfirmClaim,
  seriesHoldClaim,
  seriesRescheduleClaim,
  updateBooking,
} from '@/server/domain/claims';
import { poolSeriesBooking } from '@/server/domain/pools/poolSeries';
import { invalidField } from '@/server/domain/errors';
import { refuseGroupUnderApproval } from '@/server/domain/approvals/policyService';
import { claimThroughPool, searchPoolAvailability } from '@/server/domain/pools/poolScheduling';
import { defineOperation, groupCall, ownerCall, POOL_CALL } from '../operation';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/scheduling';
import { PoolAvailabilityResult } from '@/server/schemas/pools';
import { z } from 'zod';

const ARBITRATION = ['ARBITRATION_REJECTED', 'OUT_OF_OFFICE', 'PAST_TIME'] as const;
const TARGET = ['INVALID_MEETING_CLASS', 'OWNER_NOT_FOUND', 'CALENDAR_NOT_FOUND', 'CALENDAR_REAUTH_REQUIRED', 'owner_scope_denied'] as const;
/** A call with `pool` (docs/groups.md, "Pools"): the pool's own refusals. */
const POOL = ['POOL_NOT_FOUND'] as const;
const date = (s: string) => new Date(s);
/** A direct booking's status: 202 when an owner's approval policy held it (docs/api.md "Approval policies"), else 201. */
const bookingStatus = (value: { status: string }) => (value.status === 'pending_approval' ? 202 : 201);

/**
 * Whom a hold or booking names: a pool (the domain checks scope over the members and gates the
 * one it claims on); a group, owner_emails (docs/groups.md: the wrapper checks the first owner's
 * scope; the group claim checks every owner's after the Idempotency-Key, so such a refusal is
 * stored with the key, and gates each owner itself); or one owner, whose gate the claim checks.
 */
const claimScope = (body: { owner_email?: string; owner_emails?: string[]; pool?: string }) =>
  body.pool ? POOL_CALL : body.owner_emails ? groupCall(body.owner_emails.slice(0, 1)) : ownerCall(body.owner_email);
function groupOwners(body: { owner_email?: string; owner_emails?: string[]; pool?: string }): string[] | undefined {
  if (body.owner_emails && body.owner_email !== undefined) throw invalidField('owner_emails', 'give owner_email or owner_emails, not both');
  if (body.owner_emails && body.pool !== undefined) throw invalidField('pool', 'give owner_emails or pool, not both');
  return body.owner_emails;
}

/** A series (recurrence, min_occurrences; pool_member with a pool). */
function seriesOf(body: { recurrence?: string; min_occurrences?: number }) {
  if (body.recurrence === undefined) throw invalidField('min_occurrences', 'give it with recurrence');
  return { recurrence: body.recurrence, minOccurrences: body.min_occurrences };
}

export const searchAvailabilityOp = defineOperation({
  operationId: 'searchAvailability',
  method: 'POST',
  path: '/v1/availability/search',
  summary: 'Find slots an owner (or every owner of owner_emails) can take now, each one arbitration would accept',
  description:
    'A read: no Idempotency-Key needed. No slot answers 409 NO_SLOTS_AVAILABLE with reason_code and next_available. ' +
    'window, or windows (up to 14, searched as one); distinct: true keeps only slots that do not overlap each other; max_per_day: at most this many slots ' +
    'starting on each owner-local day; next_available_lookahead_hours: default 72, more answers LOOKAHEAD_EXCEEDS_MAXIMUM. ' +
    'Collective search: owner_emails (2-20 owners, every one must be free: each slot carries `local` times per owner) instead of owner_email; ' +
    'optional_owner_emails (up to 20, disjoint): each slot lists the free ones in free_optional, slots ranked by their number then time; ' +
    'min_optional: keep slots with at least that many free (docs/groups.md). No slot: NO_SLOTS_AVAILABLE also carries owners[] with each owner\'s reasons.',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'read_availability',
  rateLimit: { policy: 'availabilitySearch', by: 'key' },
  idempotency: false,
  writes: false,
  body: S.AvailabilitySearchBody,
  // Collective: every owner named, required and optional, must be in the agent's scope.
  scope: { of: ({ body }) => (body.owner_emails?.length ? groupCall([...body.owner_emails, ...(body.optional_owner_emails ?? [])]) : body.pool ? POOL_CALL : ownerCall(body.owner_email)) },
  query: S.CallerZone,
  success: { status: 200, description: 'Candidate slots (with pool: the members\' union, each slot with its candidates)', schema: z.union([S.AvailabilityResult, PoolAvailabilityResult]) },
  errors: ['NO_SLOTS_AVAILABLE', 'WINDOW_TOO_NARROW', 'PAST_TIME', 'LOOKAHEAD_EXCEEDS_MAXIMUM', ...TARGET, 'POOL_NOT_FOUND'],
  handler: async ({ db, actor, ownerEmail, body, now }) => {
    const window = body.window ? { start: date(body.window.start), end: date(body.window.end) } : { start: date(body.windows![0].start), end: date(body.windows![0].end) };
    const common = {
      meetingClass: body.meeting_class,
      calendarType: body.calendar_type,
      durationMinutes: body.duration_minutes,
      window,
      windows: body.windows?.map((w) => ({ start: date(w.start), end: date(w.end) })),
      distinct: body.distinct,
      maxPerDay: body.max_per_day,
      stepMinutes: body.slot_step_minutes,
      maxResults: body.max_results,
      lookaheadHours: body.next_available_lookahead_hours,
    };
    if (body.owner_emails) {
      const input = { ...common, ownerEmails: body.owner_emails, optionalOwnerEmails: body.optional_owner_emails, minOptional: body.min_optional };
      return { body: await searchGroupAvailability(db, actor, input, now) };
    }
    if (body.pool) return { body: await searchPoolAvailability(db, actor, body.pool, common, now) };
    return { body: await searchAvailability(db, actor, { ...common, ownerEmail }, now) };
  },
});

export const createHoldOp = defineOperation({
  operationId: 'createHold',
  method: 'POST',
  path: '/v1/holds',
  summary: 'Hold a candidate slot, or the earliest free stretch of a window',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  rateLimit: { policy: 'holds', by: 'key' },
  body: S.HoldCreateBody,
  scope: { of: ({ body }) => claimScope(body), gate: 'claim' },
  query: S.CallerZone,
  success: { status: 200, description: 'The hold (with recurrence: the first occurrence held, and series)', schema: S.Hold },
  errors: [...ARBITRATION, 'WINDOW_TOO_NARROW', 'NO_SLOTS_AVAILABLE', ...TARGET, ...POOL],
  transaction: 'own',
  handler: async ({ db, actor, ownerEmail, body, now, idempotencyKey, claimCall }) => {
    const common = { ownerEmail, calendarType: body.calendar_type, meetingClass: body.meeting_class, ttlSeconds: body.ttl_seconds };
    const input =
      body.hold_scope === 'candidate'
        ? { ...common, scope: 'candidate' as const, candidate: { start: date(body.candidate.start), end: date(body.candidate.end) } }
        : { ...common, scope: 'window' as const, window: { start: date(body.window.start), end: date(body.window.end) }, durationMinutes: body.duration_minutes, coverage: body.coverage };
    const ownerEmails = groupOwners(body);
    if (body.recurrence !== undefined || body.min_occurrences !== undefined) {
      const series = seriesOf(body);
      if (ownerEmails || body.pool) throw invalidField('recurrence', 'a hold series claims one owner (owner_email): book a group or pool series with POST /v1/bookings');
      // A window hold takes the earliest free stretch of its window: the occurrences of a series would not be at one local time.
      if (input.scope === 'window') throw invalidField('recurrence', 'a series holds candidate slots (hold_scope candidate): a window hold with recurrence is not supported');
      return { body: await runAnsweredClaim(db, seriesHoldClaim(actor, { ...input, ...input.candidate, ...series }, now, idempotencyKey), claimCall) };
    }
    // One hold claim of one owner or a group's (docs/groups.md "Group holds and bookings").
    if (ownerEmails) return { body: await runAnsweredClaim(db, holdClaim(actor, { ...input, ownerEmail: undefined, ownerEmails }, now, idempotencyKey), claimCall) };
    if (!body.pool) return { body: await runAnsweredClaim(db, holdClaim(actor, input, now, idempotencyKey), claimCall) };
    const request = { pool: body.pool, ownerEmail: body.owner_email, meetingClass: body.meeting_class, calendarType: body.calendar_type, slot: input.scope === 'candidate' ? input.candidate : undefined };
    const member = (email: string, details: Record<string, unknown>) => holdClaim(actor, { ...input, ownerEmail: email }, now, idempotencyKey, details);
    return { body: await claimThroughPool(db, actor, request, now, member, claimCall.answer) };
  },
});

export const getHoldOp = defineOperation({
  operationId: 'getHold',
  method: 'GET',
  path: '/v1/holds/{id}',
  summary: 'Read a hold and its status (active, promoted, expired, released, preempted)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: ['create_holds', 'read_availability'],
  params: IdParams,
  query: S.CallerZone,
  success: { status: 200, description: 'The hold', schema: S.Hold },
  errors: ['HOLD_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await getHold(db, actor, params.id, now) }),
});

export const releaseHoldOp = defineOperation({
  operationId: 'releaseHold',
  method: 'DELETE',
  path: '/v1/holds/{id}',
  summary: 'Release a hold before it expires (a series occurrence: it, it and the following ones, or the whole series: scope)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  params: IdParams,
  query: S.ReleaseQuery,
  success: { status: 200, description: 'The released hold', schema: S.Hold },
  errors: ['HOLD_NOT_FOUND', 'HOLD_EXPIRED', 'HOLD_ALREADY_PROMOTED', 'HOLD_NOT_ACTIVE', 'owner_scope_denied'],
  transaction: 'own',
  handler: async ({ db, actor, params, query, now, claimCall }) => ({ body: await releaseClaim(db, actor, params.id, now, query.scope, claimCall.answer) }),
});

export const extendHoldOp = defineOperation({
  operationId: 'extendHold',
  method: 'POST',
  path: '/v1/holds/{id}/extend',
  summary: "Extend an active hold's time to live, counted from now (no new decision)",
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  params: IdParams,
  body: S.HoldExtendBody,
  query: S.CallerZone,
  success: { status: 200, description: 'The hold with its new expiry', schema: S.Hold },
  errors: ['HOLD_NOT_FOUND', 'HOLD_EXPIRED', 'HOLD_ALREADY_PROMOTED', 'HOLD_NOT_ACTIVE', 'owner_scope_denied'],
  transaction: 'own',
  handler: async ({ db, actor, params, body, now, idempotencyKey, claimCall }) => ({ body: await extendHold(db, actor, params.id, body.ttl_seconds, now, idempotencyKey, claimCall.answer) }),
});

export const confirmHoldOp = defineOperation({
  operationId: 'confirmHold',
  method: 'POST',
  path: '/v1/bookings/{id}/confirm',
  summary: 'Confirm a hold into a booking (`id` is the hold_id; a series occurrence: scope)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_bookings',
  rateLimit: { policy: 'confirm', by: 'key' },
  params: IdParams,
  body: S.ConfirmBody,
  query: S.CallerZone,
  success: {
    status: 200,
    description: 'The booking',
    schema: S.Booking,
    also: { status: 202, description: "The hold waits for the owner's approval: their approval policy covers this agent or class (docs/api.md \"Approval policies\")", schema: S.PendingApproval },
  },
  errors: ['HOLD_NOT_FOUND', 'HOLD_EXPIRED', 'HOLD_ALREADY_PROMOTED', 'HOLD_NOT_ACTIVE', 'SLOT_OUTSIDE_HOLD', ...ARBITRATION, ...TARGET, 'APPROVAL_REQUIRED'],
  answerStatus: (value) => (value.status === 'pending_approval' ? 202 : 200),
  transaction: 'own',
  handler: async ({ db, actor, params, body, now, idempotencyKey, claimCall }) => {
    const input = { ...body, start: date(body.start), end: date(body.end), meetingClass: body.meeting_class };
    if (body.scope && body.scope !== 'occurrence') return { body: await runAnsweredClaim(db, await seriesConfirmClaim(db, actor, params.id, body.scope, input, now, idempotencyKey), claimCall) };
    // One operation for a hold of N >= 1 members: the id names a single hold or a group hold (server/domain/claims/holdConfirm.ts).
    return { body: await runAnsweredClaim(db, confirmClaim(actor, params.id, input, now, idempotencyKey), claimCall) };
  },
});

export const createBookingOp = defineOperation({
  operationId: 'createBooking',
  method: 'POST',
  path: '/v1/bookings',
  summary: 'Book directly, without a hold',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_bookings',
  rateLimit: { policy: 'bookings', by: 'key' },
  body: S.BookingCreateBody,
  scope: { of: ({ body }) => claimScope(body), gate: 'claim' },
  query: S.CallerZone,
  success: {
    status: 201,
    description: 'The booking (with recurrence: the first occurrence booked, and series)',
    schema: S.Booking,
    also: { status: 202, description: "Held for the owner's approval: their approval policy covers this agent or class (docs/api.md \"Approval policies\")", schema: S.PendingApproval },
  },
  errors: [...ARBITRATION, ...TARGET, ...POOL, 'APPROVAL_REQUIRED'],
  // A booking an owner's approval policy holds answers 202 (stored so with its Idempotency-Key).
  answerStatus: bookingStatus,
  transaction: 'own',
  handler: async ({ db, actor, ownerEmail, body, now, idempotencyKey, claimCall }) => {
    const ownerEmails = groupOwners(body);
    const input = { ...body, ownerEmail, calendarType: body.calendar_type, meetingClass: body.meeting_class, start: date(body.start), end: date(body.end) };
    if (body.pool_member !== undefined && (body.recurrence === undefined || !body.pool)) throw invalidField('pool_member', 'give it with recurrence and pool');
    if (body.recurrence !== undefined || body.min_occurrences !== undefined) {
      const series = seriesOf(body);
      if (ownerEmails) {
        await refuseGroupUnderApproval(db, { customerId: actor.customerId, ownerEmails, agentId: actor.agentId, meetingClass: body.meeting_class });
        return { body: await runAnsweredClaim(db, groupSeriesBookingClaim(actor, { ...input, ownerEmails, ...series }, now, idempotencyKey), claimCall) };
      }
      if (body.pool) return { body: await poolSeriesBooking(db, actor, { ...input, ...series, pool: body.pool, ownerEmail: body.owner_email, poolMember: body.pool_member ?? 'same' }, now, idempotencyKey, claimCall.answer) };
      return { body: await runAnsweredClaim(db, seriesBookingClaim(actor, { ...input, ...series }, now, idempotencyKey), claimCall) };
    }
    if (ownerEmails) {
      await refuseGroupUnderApproval(db, { customerId: actor.customerId, ownerEmails, agentId: actor.agentId, meetingClass: body.meeting_class });
      return { body: await runAnsweredClaim(db, groupBookingClaim(actor, { ...input, ownerEmails }, now, idempotencyKey), claimCall) };
    }
    if (!body.pool) return { body: await runAnsweredClaim(db, bookingClaim(actor, input, now, idempotencyKey), claimCall) };
    const request = { pool: body.pool, ownerEmail: body.owner_email, meetingClass: body.meeting_class, calendarType: body.calendar_type, slot: { start: input.start, end: input.end } };
    const member = (email: string, details: Record<string, unknown>) => bookingClaim(actor, { ...input, ownerEmail: email }, now, idempotencyKey, details);
    return { body: await claimThroughPool(db, actor, request, now, member, claimCall.answer) };
  },
});

export const getBookingOp = defineOperation({
  operationId: 'getBooking',
  method: 'GET',
  path: '/v1/bookings/{id}',
  summary: 'Read a booking',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: ['create_bookings', 'read_availability'],
  params: IdParams,
  query: S.CallerZone,
  success: { status: 200, description: 'The booking', schema: S.Booking },
  errors: ['BOOKING_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await getBooking(db, actor, params.id, now) }),
});

export const updateBookingOp = defineOperation({
  operationId: 'updateBooking',
  method: 'PATCH',
  path: '/v1/bookings/{id}',
  summary: "Edit a booking's title, description or attendees (its time changes only through reschedule)",
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_bookings',
  params: IdParams,
  body: S.BookingPatchBody,
  query: S.CallerZone,
  success: { status: 200, description: 'The booking', schema: S.Booking },
  errors: ['BOOKING_NOT_FOUND', 'BOOKING_NOT_ACTIVE', 'permission_denied:manage_customer', 'owner_scope_denied'],
  handler: async ({ db, actor, params, body, now, idempotencyKey }) => ({ body: await updateBooking(db, actor, params.id, body, now, idempotencyKey) }),
});

export const cancelBookingOp = defineOperation({
  operationId: 'cancelBooking',
  method: 'POST',
  path: '/v1/bookings/{id}/cancel',
  summary: 'Cancel a booking (an occurrence of a series: it, it and the following ones, or the whole series: scope)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_bookings',
  params: IdParams,
  body: S.CancelBody,
  query: S.CallerZone,
  success: { status: 200, description: 'The cancelled booking', schema: S.Booking },
  errors: ['BOOKING_NOT_FOUND', 'BOOKING_NOT_ACTIVE', 'owner_scope_denied'],
  transaction: 'own',
  handler: async ({ db, actor, params, body, now, idempotencyKey, claimCall }) => ({ body: await cancelClaim(db, actor, params.id, body.reason, now, idempotencyKey, body.scope, claimCall.answer) }),
});

export const rescheduleBookingOp = defineOperation({
  operationId: 'rescheduleBooking',
  method: 'POST',
  path: '/v1/bookings/{id}/reschedule',
  summary: 'Move a booking to a new time in place (same booking_id), arbitrated as a new booking (a series occurrence: scope)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_bookings',
  rateLimit: { policy: 'bookings', by: 'key' },
  params: IdParams,
  body: S.RescheduleBody,
  query: S.CallerZone,
  success: { status: 200, description: 'The booking at its new time', schema: S.Booking },
  errors: ['BOOKING_NOT_FOUND', 'BOOKING_NOT_ACTIVE', 'permission_denied:manage_customer', ...ARBITRATION, ...TARGET],
  transaction: 'own',
  handler: async ({ db, actor, params, body, now, idempotencyKey, claimCall }) => {
    const mover = { kind: 'agent' as const, actor };
    const owner = await bookingOwner(db, mover, params.id);
    const input = { start: date(body.start), end: date(body.end), reason: body.reason };
    const scoped = body.scope && body.scope !== 'occurrence';
    const op = scoped ? await seriesRescheduleClaim(db, mover, owner, params.id, body.scope as 'following' | 'series', input, now, idempotencyKey) : rescheduleClaim(mover, owner, params.id, input, now, idempotencyKey);
    // The call names a booking, not an owner: the gate is its owner's, read first.
    return { body: await runAnsweredClaim(db, op, { ...claimCall, gate: { owner: { customerId: owner.customerId, email: owner.email }, now } }) };
  },
});

export const evaluateOp = defineOperation({
  operationId: 'evaluateArbitration',
  method: 'POST',
  path: '/v1/arbitration/evaluate',
  summary: 'Dry run: the decision a booking would get now (no side effect, no audit row)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'read_availability',
  idempotency: false,
  writes: false,
  body: S.EvaluateBody,
  scope: { of: ({ body }) => ownerCall(body.owner_email) },
  query: S.CallerZone,
  success: { status: 200, description: 'The decision', schema: S.EvaluateResult },
  errors: [...TARGET],
  handler: async ({ db, actor, ownerEmail, body, now }) => ({
    body: await evaluateBooking(db, actor, { ownerEmail, meetingClass: body.meeting_class, calendarType: body.calendar_type, start: date(body.start), end: date(body.end) }, now),
  }),
});
