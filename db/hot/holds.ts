import { calendars, claims, meetingClasses, owners } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows } from './driver';
import { calendarColumns, meetingClassColumns, ownerColumns, toCalendar, toMeetingClass, toOwner, type TargetCalendar, type TargetMeetingClass, type TargetOwner } from './target';

/**
 * The reads a confirm starts with (server/domain/claims/holdConfirm.ts), sent as one pipeline
 * behind BEGIN, for a claim of N >= 1 members: the hold the id names, or every member of the
 * group hold it names (a member's id, or the group_id, which no claim row has). First the
 * members' owner rows locked (FOR UPDATE in owner-id order: the order of every group claim,
 * so two claims sharing owners cannot deadlock; one owner for a single hold), then the hold
 * rows locked, with each one's calendar, its own meeting class and, when the confirm names
 * one, the class it names. A further range of an all_free hold (part_of_hold_id) names only
 * itself. $1 the id, $2 customer, $3 the named class (only in the second text).
 */
const h = names(claims);
const o = names(owners);
const m = names(meetingClasses);
const cal = names(calendars);

/** The hold rows (alias `a`) a confirm's id names: its own, or its group's members. */
const named = (a: string) => `${a}.${h.customerId} = $2 and ${a}.${h.kind} = 'hold' and (${a}.${h.id} = $1 or (${a}.${h.partOfHoldId} is null and ${a}.${h.groupId} in ($1,
    (select n.${h.groupId} from claims n where n.${h.id} = $1 and n.${h.customerId} = $2 and n.${h.kind} = 'hold' and n.${h.partOfHoldId} is null))))`;

const LOCK_HOLD_OWNERS = `select ${ownerColumns('o')} from owners o
  where o.${o.id} in (select a.${h.ownerId} from claims a where ${named('a')}) order by o.${o.id} for update of o`;

const holdRows = (withClass: boolean) => `select ${columnList(claims, 'h', 'h_')}, ${calendarColumns('c')}, hm.${m.name} as hold_class_name,
    ${meetingClassColumns('m')}
  from claims h
  join calendars c on c.${cal.id} = h.${h.calendarId}
  join meeting_classes hm on hm.${m.id} = h.${h.meetingClassId}
  left join meeting_classes m on ${withClass ? `m.${m.customerId} = h.${h.customerId} and m.${m.name} = $3` : `m.${m.id} = h.${h.meetingClassId}`}
  where ${named('h')} order by h.${h.ownerId}, h.${h.id} for update of h`;
const LOCK_HOLDS = holdRows(false);
const LOCK_HOLDS_NAMED_CLASS = holdRows(true);

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

/**
 * Lock the owners of the holds an id names, then the holds, reading what a confirm needs:
 * one member for a single hold, every member (in owner-id order) for a group hold; none when
 * the id names no hold of this customer.
 */
export async function lockHoldsForConfirm(db: Executor, id: string, customerId: string, meetingClassName: string | undefined): Promise<LockedHold[]> {
  const [ownerRows, holdRows] = await Promise.all([
    queryRows(db, LOCK_HOLD_OWNERS, [id, customerId]),
    meetingClassName === undefined ? queryRows(db, LOCK_HOLDS, [id, customerId]) : queryRows(db, LOCK_HOLDS_NAMED_CLASS, [id, customerId, meetingClassName]),
  ]);
  const ownersById = new Map(ownerRows.map(toOwner).map((owner) => [owner.id, owner]));
  return holdRows.flatMap((raw) => {
    const hold = toClaim(raw);
    const owner = ownersById.get(hold.ownerId);
    return owner ? [{ owner, hold, calendar: toCalendar(raw), holdClassName: raw.hold_class_name as string, meetingClass: raw.m_id == null ? null : toMeetingClass(raw) }] : [];
  });
}
