import { calendars, meetingClasses, owners } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows } from './driver';

/**
 * What a scheduling call works with: the owner, the calendar it books on and the meeting
 * class. The owner's password hash and the calendar's provider credentials are left out:
 * the hot path never reads them, so it never loads them.
 */
export type TargetOwner = Omit<typeof owners.$inferSelect, 'passwordHash'>;
export type TargetCalendar = Omit<typeof calendars.$inferSelect, 'credentials'>;
export type TargetMeetingClass = typeof meetingClasses.$inferSelect;

const OWNER_OMIT = ['passwordHash'] as const;
const CALENDAR_OMIT = ['credentials'] as const;
/**
 * The target's columns (owner as `o_*`, calendar as `c_*`, class as `m_*`, under the alias
 * given) and their mappers, shared by every statement that reads a target beside other rows
 * (db/hot/holds.ts, db/hot/move.ts).
 */
export const ownerColumns = (alias: string) => columnList(owners, alias, 'o_', OWNER_OMIT);
export const calendarColumns = (alias: string) => columnList(calendars, alias, 'c_', CALENDAR_OMIT);
export const meetingClassColumns = (alias: string) => columnList(meetingClasses, alias, 'm_');
export const toOwner = rowMapper(owners, 'o_', OWNER_OMIT);
export const toCalendar = rowMapper(calendars, 'c_', CALENDAR_OMIT);
export const toMeetingClass = rowMapper(meetingClasses, 'm_');
const o = names(owners);
const c = names(calendars);
const m = names(meetingClasses);

/**
 * The calendar a call books on (docs/architecture.md): with a calendar type, the owner's
 * connected calendar of that type, primary first; without, the primary. Disconnected
 * calendars do not count; an active one goes before one needing re-authorisation, then the
 * oldest. `typeParam` is the parameter holding the type, or null for the primary.
 */
function calendarPick(ownerId: string, typeParam: string | null): string {
  return `select * from calendars c where c.${c.ownerId} = ${ownerId} and c.${c.status} <> 'disconnected' and ${typeParam ? `c.${c.type} = ${typeParam}` : `c.${c.isPrimary}`}
      order by c.${c.isPrimary} desc, (c.${c.status} = 'active') desc, c.${c.createdAt} asc limit 1`;
}

/**
 * $1 customer, $2 normalised email, $3 meeting class, $4 calendar type (when given). One row
 * when the owner exists; the class and calendar columns are null when they do not.
 */
export function targetStatement(byType: boolean, lock: boolean, many = false): string {
  const columns = [ownerColumns('o'), calendarColumns('c'), meetingClassColumns('m')].join(', ');
  const who = many ? `o.${o.email} in (select jsonb_array_elements_text($2::jsonb))` : `o.${o.email} = $2`;
  return `select ${columns} from owners o
    left join meeting_classes m on m.${m.customerId} = o.${o.customerId} and m.${m.name} = $3
    left join lateral (${calendarPick(`o.${o.id}`, byType ? '$4' : null)}) c on true
    where o.${o.customerId} = $1 and ${who}${lock ? `${many ? ` order by o.${o.id}` : ''} for update of o` : ''}`;
}
const TARGET_STATEMENTS = [0, 1, 2, 3].map((i) => targetStatement(i >= 2, i % 2 === 1));

export type TargetRow = { owner: TargetOwner; calendar: TargetCalendar | null; meetingClass: TargetMeetingClass | null };

const MANY_TARGET_STATEMENTS = [0, 1, 2, 3].map((i) => targetStatement(i >= 2, i % 2 === 1, true));
const toTargetRow = (raw: Record<string, unknown>): TargetRow => ({ owner: toOwner(raw), calendar: raw.c_id == null ? null : toCalendar(raw), meetingClass: raw.m_id == null ? null : toMeetingClass(raw) });

/**
 * Owners (optionally locked FOR UPDATE, in owner-id order), each with the calendar it books on,
 * and the meeting class, in one statement whatever the number of owners (docs/groups.md "How a
 * group is loaded"): the rows of the owners that exist, in no particular order; the class and
 * calendar columns are null when they do not exist. One owner is read by equality, many from a
 * JSON list of emails.
 */
export async function loadTargetRows(
  db: Executor,
  customerId: string,
  input: { emails: readonly string[]; meetingClass: string; calendarType?: string },
  lock: boolean,
): Promise<TargetRow[]> {
  const one = input.emails.length === 1;
  const statements = one ? TARGET_STATEMENTS : MANY_TARGET_STATEMENTS;
  const params = [customerId, one ? input.emails[0] : JSON.stringify(input.emails), input.meetingClass];
  const rows = input.calendarType ? await queryRows(db, statements[2 + Number(lock)], [...params, input.calendarType]) : await queryRows(db, statements[Number(lock)], params);
  return rows.map(toTargetRow);
}

/** loadTargetRows of one owner: its row, or undefined when no such owner. */
export async function loadTargetRow(db: Executor, customerId: string, input: { email: string; meetingClass: string; calendarType?: string }, lock: boolean): Promise<TargetRow | undefined> {
  const [row] = await loadTargetRows(db, customerId, { emails: [input.email], meetingClass: input.meetingClass, calendarType: input.calendarType }, lock);
  return row;
}

const PICK_PRIMARY = `select ${calendarColumns('c')} from (${calendarPick('$1', null)}) c`;
const PICK_BY_TYPE = `select ${calendarColumns('c')} from (${calendarPick('$1', '$2')}) c`;

/** The calendar a call on this owner books on (the same choice as loadTargetRow's), or undefined. */
export async function pickCalendar(db: Executor, ownerId: string, calendarType: string | undefined): Promise<TargetCalendar | undefined> {
  const [raw] = calendarType ? await queryRows(db, PICK_BY_TYPE, [ownerId, calendarType]) : await queryRows(db, PICK_PRIMARY, [ownerId]);
  return raw ? toCalendar(raw) : undefined;
}
