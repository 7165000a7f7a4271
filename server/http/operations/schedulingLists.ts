import { listBookings, listHolds } from '@/server/domain/claims';
import { defineOperation } from '../operation';
import * as S from '@/server/schemas/scheduling';

/** The listings of holds and bookings in the caller's owner scope (GET /v1/holds, GET /v1/bookings); the claims themselves are in scheduling.ts. */
const date = (s: string) => new Date(s);

const listQuery = (q: { owner_email?: string; from?: string; to?: string; status?: string; agent?: string; limit: number; cursor?: string }) => ({
  ownerEmail: q.owner_email,
  from: q.from ? date(q.from) : undefined,
  to: q.to ? date(q.to) : undefined,
  status: q.status,
  agent: q.agent,
  limit: q.limit,
  cursor: q.cursor,
});

export const listHoldsOp = defineOperation({
  operationId: 'listHolds',
  method: 'GET',
  path: '/v1/holds',
  summary: 'Holds in the caller\'s owner scope, by start (filters: owner_email, from, to, status, agent = me or an id)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: ['read_availability', 'create_holds'],
  query: S.HoldListQuery,
  success: { status: 200, description: 'A page of holds', schema: S.HoldList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query, now }) => ({ body: await listHolds(db, actor, listQuery(query), now) }),
});

export const listBookingsOp = defineOperation({
  operationId: 'listBookings',
  method: 'GET',
  path: '/v1/bookings',
  summary: 'Bookings in the caller\'s owner scope, by start (filters: owner_email, from, to, status, agent = me or an id)',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: ['read_availability', 'create_bookings'],
  query: S.BookingListQuery,
  success: { status: 200, description: 'A page of bookings', schema: S.BookingList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query, now }) => ({ body: await listBookings(db, actor, listQuery(query), now) }),
});
