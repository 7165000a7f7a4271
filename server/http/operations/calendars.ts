import { calendarView, connectCaldav, disconnectCalendar, listCalendars, updateCalendar } from '@/server/domain/calendars/calendarService';
import { IdParams } from '@/server/schemas/common';
import { defineOperation, ownerCall } from '../operation';
import * as S from '@/server/schemas/calendars';

export const listCalendarsOp = defineOperation({
  operationId: 'listCalendars',
  method: 'GET',
  path: '/v1/calendars',
  summary: "An owner's calendars with status and last sync",
  tags: ['Calendars'],
  auth: 'api_key',
  query: S.CalendarsQuery,
  // Shows the status that other calls for this owner fail on, so it never fails on it itself.
  scope: { of: ({ query }) => ownerCall(query.owner_email), gate: false },
  success: { status: 200, description: 'The calendars, primary first', schema: S.CalendarList },
  errors: ['OWNER_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail }) => ({ body: { calendars: (await listCalendars(db, actor.customerId, ownerEmail)).map(calendarView) } }),
});

export const connectCaldavOp = defineOperation({
  operationId: 'connectCaldavCalendar',
  method: 'POST',
  path: '/v1/calendars/caldav',
  summary: 'Connect (or reconnect) a CalDAV calendar of an owner and run its first sync',
  tags: ['Calendars'],
  auth: 'api_key',
  permission: 'manage_customer',
  body: S.CaldavConnectBody,
  scope: { of: ({ body }) => ownerCall(body.owner_email), gate: false },
  success: { status: 200, description: 'The connected calendar', schema: S.Calendar },
  errors: ['OWNER_NOT_FOUND', 'owner_scope_denied'],
  transaction: false, // discovery and the first sync talk to the CalDAV server
  handler: async ({ db, actor, ownerEmail, body, now }) => {
    const { calendar } = await connectCaldav(
      db,
      actor.customerId,
      ownerEmail,
      { serverUrl: body.server_url, username: body.username, password: body.password, calendarUrl: body.calendar_url, makePrimary: body.make_primary, checkConflicts: body.check_conflicts },
      now,
    );
    return { body: calendarView(calendar) };
  },
});

export const updateCalendarOp = defineOperation({
  operationId: 'updateCalendar',
  method: 'PATCH',
  path: '/v1/calendars/{id}',
  summary: 'Make a calendar primary, or set whether its events count as busy ("check for conflicts")',
  tags: ['Calendars'],
  auth: 'api_key',
  permission: 'manage_customer',
  params: IdParams,
  body: S.CalendarPatchBody,
  scope: { of: ({ body }) => ownerCall(body.owner_email), gate: false },
  success: { status: 200, description: 'The calendar', schema: S.Calendar },
  errors: ['OWNER_NOT_FOUND', 'CALENDAR_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail, params, body, now }) => ({
    body: calendarView(await updateCalendar(db, actor.customerId, ownerEmail, params.id, { makePrimary: body.make_primary, checkConflicts: body.check_conflicts }, now)),
  }),
});

export const disconnectCalendarOp = defineOperation({
  operationId: 'disconnectCalendar',
  method: 'DELETE',
  path: '/v1/calendars/{id}',
  summary: 'Disconnect a provider calendar (its credentials and synced events are dropped)',
  tags: ['Calendars'],
  auth: 'api_key',
  permission: 'manage_customer',
  params: IdParams,
  query: S.CalendarsQuery,
  scope: { of: ({ query }) => ownerCall(query.owner_email), gate: false },
  success: { status: 200, description: 'The disconnected calendar', schema: S.Calendar },
  errors: ['OWNER_NOT_FOUND', 'CALENDAR_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail, params, now }) => ({ body: calendarView(await disconnectCalendar(db, actor.customerId, ownerEmail, params.id, now)) }),
});
