import { remindersOfBooking } from '@/server/domain/reminders/views';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/scheduling';
import { defineOperation } from '../operation';

export const bookingRemindersOp = defineOperation({
  operationId: 'getBookingReminders',
  method: 'GET',
  path: '/v1/bookings/{id}/reminders',
  summary: "A booking's reminders: when each is due and whether it went out",
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: ['create_bookings', 'read_availability'],
  params: IdParams,
  success: { status: 200, description: 'The reminders', schema: S.BookingReminders },
  errors: ['BOOKING_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await remindersOfBooking(db, actor, params.id, now) }),
});
