import { calendars, claims, meetingClasses, owners, type AttendeeJson } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows, type Param } from './driver';
import { calendarColumns, meetingClassColumns, ownerColumns, toCalendar, toMeetingClass, toOwner, type TargetCalendar, type TargetMeetingClass, type TargetOwner } from './target';

/**
 * The statements of a reschedule (server/domain/claims/rescheduleService.ts; docs/api.md
 * "Reschedule", docs/benchmarks/history/2026-11-26-reschedule.md).
 *
 * LOCK_MOVE: the booking's owner row and the booking row, both locked, with the booking's own
 * meeting class and calendar, in one statement. `for update of o, b` takes the row locks in
 * that order (PostgreSQL locks the rows of a locking clause in the order it names them), so
 * the owner lock comes first, as in every claim decision (docs/architecture.md "Deciding on
 * time"); after waiting for either lock the statement returns the rows' latest committed
 * versions (READ COMMITTED rechecks locked rows). $1 owner id, $2 booking id, $3 customer.
 * No row when the owner has no such booking of this customer.
 */
const o = names(owners);
const b = names(claims);
const m = names(meetingClasses);
const cal = names(calendars);

const LOCK_MOVE = `select ${ownerColumns('o')}, ${columnList(claims, 'b', 'b_')},
    ${calendarColumns('c')}, ${meetingClassColumns('m')}
  from owners o
  join claims b on b.${b.ownerId} = o.${o.id} and b.${b.id} = $2 and b.${b.customerId} = $3 and b.${b.kind} = 'booking'
  left join meeting_classes m on m.${m.id} = b.${b.meetingClassId}
  left join calendars c on c.${cal.id} = b.${b.calendarId}
  where o.${o.id} = $1
  for update of o, b`;

const toClaim = rowMapper(claims, 'b_');

export type LockedMove = {
  owner: TargetOwner;
  booking: typeof claims.$inferSelect;
  /** The booking's calendar (null when it has none, or it is gone). */
  calendar: TargetCalendar | null;
  /** The booking's meeting class (null for an imported meeting without one). */
  meetingClass: TargetMeetingClass | null;
};

/** Lock the owner, then the booking, reading its class and calendar; undefined when the owner has no such booking of this customer. */
export async function lockMove(db: Executor, ownerId: string, bookingId: string, customerId: string): Promise<LockedMove | undefined> {
  const [raw] = await queryRows(db, LOCK_MOVE, [ownerId, bookingId, customerId]);
  if (!raw) return undefined;
  return {
    owner: toOwner(raw),
    booking: toClaim(raw),
    calendar: raw.c_id == null ? null : toCalendar(raw),
    meetingClass: raw.m_id == null ? null : toMeetingClass(raw),
  };
}

/**
 * MOVE_BOOKING: the accepted move of a booking the transaction holds locked (LOCK_MOVE): its
 * new range (the exclusion constraint judges it), its attendees' answers, its revision
 * (`sequence`) one up. No RETURNING: the caller knows the row (moved), so the statement can
 * be deferred to COMMIT as a new claim's insert is (db/hot/driver.ts defer).
 * $1 id, $2 start, $3 end, $4 attendees, $5 external_accepted, $6 status_reason, $7 updated_at.
 */
const MOVE_BOOKING = `update claims set ${b.startAt} = $2, ${b.endAt} = $3, ${b.attendees} = $4, ${b.externalAccepted} = $5,
  ${b.statusReason} = $6, ${b.sequence} = ${b.sequence} + 1, ${b.updatedAt} = $7 where ${b.id} = $1`;

export type BookingMove = { startAt: Date; endAt: Date; attendees: AttendeeJson[]; externalAccepted: boolean; statusReason: string | null; updatedAt: Date };

const param = (column: { mapToDriverValue(v: unknown): unknown }, v: unknown): Param => (v === null ? null : (column.mapToDriverValue(v) as Param));

/** The booking row `from` (read locked) as it reads back after MOVE_BOOKING with `move`. */
export function movedRow(from: typeof claims.$inferSelect, move: BookingMove): typeof claims.$inferSelect {
  return { ...from, ...move, sequence: from.sequence + 1 };
}

/** Move the booking (see MOVE_BOOKING). */
export async function moveBookingRow(db: Executor, id: string, move: BookingMove): Promise<void> {
  await queryRows(db, MOVE_BOOKING, [
    id,
    param(claims.startAt, move.startAt),
    param(claims.endAt, move.endAt),
    param(claims.attendees, move.attendees),
    move.externalAccepted,
    move.statusReason,
    param(claims.updatedAt, move.updatedAt),
  ]);
}

/**
 * BOOKING_OWNERS: who owns the booking a reschedule names, read before the queue (it names the
 * queue and the calendar gate): the booking $1 of customer $2, or, when $1 is a group's id, its
 * bookings (not further ranges of a hold), in owner-id order, at most $3 rows.
 */
const BOOKING_OWNERS = `select b.${b.id} as id, b.${b.ownerId} as owner_id, o.${o.email} as email, b.${b.groupId} as group_id
  from claims b join owners o on o.${o.id} = b.${b.ownerId}
  where (b.${b.id} = $1 or (b.${b.groupId} = $1 and b.${b.partOfHoldId} is null)) and b.${b.customerId} = $2 and b.${b.kind} = 'booking'
  order by b.${b.ownerId} limit $3`;

export type BookingOwnerRow = { id: string; ownerId: string; email: string; groupId: string | null };

/** The rows of BOOKING_OWNERS (ids in lower case, as the driver returns uuids). */
export async function bookingOwnerRows(db: Executor, id: string, customerId: string, limit: number): Promise<BookingOwnerRow[]> {
  const rows = await queryRows(db, BOOKING_OWNERS, [id, customerId, limit]);
  return rows.map((r) => ({ id: String(r.id), ownerId: String(r.owner_id), email: String(r.email), groupId: r.group_id == null ? null : String(r.group_id) }));
}
