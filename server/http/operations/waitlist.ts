import { getWaitlistEntry, joinWaitlist, leaveWaitlist, listWaitlist } from '@/server/domain/waitlist/entries';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/waitlist';
import { defineOperation } from '../operation';

/**
 * The waitlist (docs/api.md "Waitlist"): an agent waits for an owner's time; the transaction that
 * frees time offers the first entry that fits a hold (docs/arbitration.md "Waitlist").
 */

export const joinWaitlistOp = defineOperation({
  operationId: 'joinWaitlist',
  method: 'POST',
  path: '/v1/waitlist',
  summary: "Wait for an owner's time; freed time is offered to you as a hold",
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  rateLimit: { policy: 'holds', by: 'key' },
  body: S.WaitlistJoinBody,
  success: { status: 201, description: 'The entry, waiting', schema: S.WaitlistEntry },
  errors: ['WINDOW_TOO_NARROW', 'PAST_TIME', 'OWNER_NOT_FOUND', 'CALENDAR_NOT_FOUND', 'INVALID_MEETING_CLASS', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => ({
    status: 201,
    body: await joinWaitlist(
      db,
      actor,
      {
        ownerEmail: body.owner_email,
        meetingClass: body.meeting_class,
        calendarType: body.calendar_type,
        durationMinutes: body.duration_minutes,
        window: { start: new Date(body.window_start), end: new Date(body.window_end) },
        expiresAt: body.expires_at ? new Date(body.expires_at) : undefined,
      },
      now,
    ),
  }),
});

export const listWaitlistOp = defineOperation({
  operationId: 'listWaitlist',
  method: 'GET',
  path: '/v1/waitlist',
  summary: 'Your waitlist entries, newest first',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  query: S.WaitlistQuery,
  success: { status: 200, description: 'Your entries', schema: S.WaitlistList },
  errors: [],
  handler: async ({ db, actor, query, now }) => ({ body: { data: await listWaitlist(db, actor, now, query.status ? [query.status] : undefined) } }),
});

export const getWaitlistOp = defineOperation({
  operationId: 'getWaitlistEntry',
  method: 'GET',
  path: '/v1/waitlist/{id}',
  summary: 'One of your waitlist entries',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  params: IdParams,
  success: { status: 200, description: 'The entry', schema: S.WaitlistEntry },
  errors: ['WAITLIST_ENTRY_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await getWaitlistEntry(db, actor, params.id, now) }),
});

export const leaveWaitlistOp = defineOperation({
  operationId: 'leaveWaitlist',
  method: 'DELETE',
  path: '/v1/waitlist/{id}',
  summary: 'Leave the waitlist (an offered hold stays yours)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'create_holds',
  params: IdParams,
  success: { status: 200, description: 'The entry', schema: S.WaitlistEntry },
  errors: ['WAITLIST_ENTRY_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await leaveWaitlist(db, actor, params.id, now) }),
});
