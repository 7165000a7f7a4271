import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, meetingClasses, owners } from '@/db/schema';
import type { GroupMemberView } from '../notificationService';
import { holdStatus } from './views';

/**
 * The members of group holds and bookings (docs/groups.md): one claim per owner sharing a
 * `group_id` (the further ranges of an all_free window hold share it too, and are never a
 * member of their own). Read by the decision that preempts a group, and by every read-back.
 */
export type GroupMemberRow = {
  id: string;
  groupId: string;
  kind: 'hold' | 'booking';
  status: string;
  agentId: string | null;
  ownerId: string;
  ownerEmail: string;
  timeZone: string;
  startAt: Date;
  endAt: Date;
  expiresAt: Date | null;
  meetingClass: string | null;
  customerId: string;
};

export async function loadGroupMembers(db: Executor, groupIds: readonly string[], kind?: 'hold' | 'booking'): Promise<GroupMemberRow[]> {
  if (!groupIds.length) return [];
  const rows = await db
    .select({
      id: claims.id,
      groupId: claims.groupId,
      kind: claims.kind,
      status: claims.status,
      agentId: claims.agentId,
      ownerId: claims.ownerId,
      ownerEmail: owners.email,
      timeZone: owners.timeZone,
      startAt: claims.startAt,
      endAt: claims.endAt,
      expiresAt: claims.expiresAt,
      meetingClass: meetingClasses.name,
      customerId: claims.customerId,
    })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .where(and(inArray(claims.groupId, [...groupIds]), isNull(claims.partOfHoldId), kind ? eq(claims.kind, kind) : undefined))
    .orderBy(asc(claims.ownerId));
  return rows as GroupMemberRow[];
}

/** A member as answers show it: its owner, its id (hold_id or booking_id) and its status (a hold past its expiry reads expired). */
export function memberView(m: Pick<GroupMemberRow, 'id' | 'kind' | 'status' | 'ownerEmail' | 'expiresAt'>, now: Date): GroupMemberView {
  const status = m.kind === 'hold' ? holdStatus({ status: m.status, expiresAt: m.expiresAt } as Parameters<typeof holdStatus>[0], now) : m.status;
  return { owner_email: m.ownerEmail, [m.kind === 'hold' ? 'hold_id' : 'booking_id']: m.id, status };
}

/** Each group's members as answers show them, by group id. */
export async function groupMemberViews(db: Executor, groupIds: readonly string[], kind: 'hold' | 'booking', now: Date): Promise<Map<string, GroupMemberView[]>> {
  const out = new Map<string, GroupMemberView[]>();
  for (const m of await loadGroupMembers(db, [...new Set(groupIds)], kind)) out.set(m.groupId, [...(out.get(m.groupId) ?? []), memberView(m, now)]);
  return out;
}

/** The members of the groups among `rows`, as answers show them (no query when none is a group member). */
export function membersOf(db: Executor, rows: readonly { groupId: string | null }[], kind: 'hold' | 'booking', now: Date): Promise<Map<string, GroupMemberView[]>> {
  const ids = rows.map((r) => r.groupId).filter((g): g is string => !!g);
  return ids.length ? groupMemberViews(db, ids, kind, now) : Promise.resolve(new Map());
}
