import { calendars, claims, meetingClasses, owners } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows } from './driver';
import { calendarColumns, meetingClassColumns, ownerColumns, toCalendar, toMeetingClass, toOwner, type TargetCalendar, type TargetMeetingClass, type TargetOwner } from './target';

/**
 * The reads a confirm starts with (server/domain/claims/bookingService.ts), sent as one
 * pipeline behind BEGIN: first the hold's owner row locked (FOR UPDATE: the same order as
 * every claim decision, owner first), then the hold row locked, with its calendar, its own
 * meeting class and, when the confirm names one, the class it names. $1 hold id, $2 customer,
 * $3 the named class (only in the second text).
 */
const h = names(claims);
const o = names(owners);
const m = names(meetingClasses);
const cal = names(calendars);

const LOCK_HOLD_OWNER = `select ${ownerColumns('o')} from owners o
  where o.${o.id} = (select ${h.ownerId} from claims where ${h.id} = $1 and ${h.customerId} = $2 and ${h.kind} = 'hold') for update of o`;

const holdRow = (named: boolean) => `select ${columnList(claims, 'h', 'h_')}, ${calendarColumns('c')}, hm.${m.name} as hold_class_name,
    ${meetingClassColumns('m')}
  from claims h
  join calendars c on c.${cal.id} = h.${h.calendarId}
  join meeting_classes hm on hm.${m.id} = h.${h.meetingClassId}
  left join meeting_classes m on ${named ? `m.${m.customerId} = h.${h.customerId} and m.${m.name} = $3` : `m.${m.id} = h.${h.meetingClassId}`}
  where h.${h.id} = $1 and h.${h.customerId} = $2 and h.${h.kind} = 'hold' for update of h`;
const LOCK_HOLD = holdRow(false);
const LOCK_HOLD_NAMED_CLASS = holdRow(true);

const toClaim = rowMapper(claims, 'h_');

export type LockedHold = {
  owner: TargetOwner;
  hold: typeof claims.$inferSelect;
  calendar: TargetCalendar;
  /** The name of the hold's own meeting class. */
  holdClassName: string;
  /** The class the booking takes: the named one (null when no such class), else the hold's. */
  meetingClass: TargetMeetingClass | null;
};

/** Lock a hold's owner, then the hold, reading what a confirm needs; undefined when no such hold of this customer. */
export async function lockHoldForConfirm(db: Executor, holdId: string, customerId: string, meetingClassName: string | undefined): Promise<LockedHold | undefined> {
  const [ownerRows, holdRows] = await Promise.all([
    queryRows(db, LOCK_HOLD_OWNER, [holdId, customerId]),
    meetingClassName === undefined ? queryRows(db, LOCK_HOLD, [holdId, customerId]) : queryRows(db, LOCK_HOLD_NAMED_CLASS, [holdId, customerId, meetingClassName]),
  ]);
  const [ownerRaw] = ownerRows;
  const [raw] = holdRows;
  if (!ownerRaw || !raw) return undefined;
  return {
    owner: toOwner(ownerRaw),
    hold: toClaim(raw),
    calendar: toCalendar(raw),
    holdClassName: raw.hold_class_name as string,
    meetingClass: raw.m_id == null ? null : toMeetingClass(raw),
  };
}
