import { and, asc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, meetingClasses, owners } from '@/db/schema';
import type { GroupMemberView } from '../notificationService';
import { assertOwnerInScope, normalizeEmail, type AgentActor } from '../access';
import { invalidField } from '../errors';
import { holdStatus } from './views';

/** How many owners a group names (docs/groups.md). */
const MIN_GROUP_OWNERS = 2;
export const MAX_GROUP_OWNERS = 20;

/** The owners a group call names, normalised and distinct, each in the agent's owner scope. */
export function groupOwnerEmails(actor: AgentActor, emails: readonly string[]): string[] {
  const out = [...new Set(emails.map(normalizeEmail))];
  if (out.length < MIN_GROUP_OWNERS || out.length > MAX_GROUP_OWNERS) {
    throw invalidField('owner_emails', `give ${MIN_GROUP_OWNERS} to ${MAX_GROUP_OWNERS} distinct owners`);
  }
  for (const email of out) assertOwnerInScope(actor, email);
  return out;
}

/** Lock the owners' rows in owner-id order (one order for every group: no deadlock between groups sharing owners). */
export async function lockOwnersInOrder(tx: Executor, customerId: string, emails: readonly string[]): Promise<void> {
  await tx.select({ id: owners.id }).from(owners).where(and(eq(owners.customerId, customerId), inArray(owners.email, [...emails]))).orderBy(asc(owners.id)).for('update');
}

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
  holdId: string | null;
  /** An occurrence of a recurring series (docs/arbitration.md "Recurring series"). */
  seriesId: string | null;
};
/** A member of a named claim: a group's (its group_id) or the one claim (none). */
export type ClaimMemberRow = Omit<GroupMemberRow, 'groupId'> & { groupId: string | null };

/**
 * The claims one hold or booking id names (docs/groups.md "Confirm, cancel, release"): the claim
 * alone (`groupId` null), or every member of its group (`groupId`). A claim of N >= 1 members.
 */
export type NamedClaim = { groupId: string | null; members: { id: string; ownerEmail: string }[] };

export function loadGroupMembers(db: Executor, groupIds: readonly string[], kind?: 'hold' | 'booking'): Promise<GroupMemberRow[]> {
  if (!groupIds.length) return Promise.resolve([]);
  return selectMembers(db, inArray(claims.groupId, [...groupIds]), kind) as Promise<GroupMemberRow[]>;
}

/** The members of a named claim (its group's, or the one claim's), in owner-id order. */
export function loadMembers(db: Executor, named: NamedClaim, kind: 'hold' | 'booking'): Promise<ClaimMemberRow[]> {
  return named.groupId ? loadGroupMembers(db, [named.groupId], kind) : selectMembers(db, inArray(claims.id, named.members.map((m) => m.id)), kind);
}

async function selectMembers(db: Executor, which: SQL, kind?: 'hold' | 'booking'): Promise<ClaimMemberRow[]> {
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
      holdId: claims.holdId,
      seriesId: claims.seriesId,
    })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .where(and(which, isNull(claims.partOfHoldId), kind ? eq(claims.kind, kind) : undefined))
    .orderBy(asc(claims.ownerId));
  return rows as ClaimMemberRow[];
}

/** A member as answers show it: its owner, its id (hold_id or booking_id) and its status (a hold past its expiry reads expired). */
export function memberView(m: Pick<GroupMemberRow, 'id' | 'kind' | 'status' | 'ownerEmail' | 'expiresAt'>, now: Date): GroupMemberView {
  const status = m.kind === 'hold' ? holdStatus({ status: m.status, expiresAt: m.expiresAt } as Parameters<typeof holdStatus>[0], now) : m.status;
  return { owner_email: m.ownerEmail, [m.kind === 'hold' ? 'hold_id' : 'booking_id']: m.id, status };
}

/** Each group's members as answers show them, by group id. */
async function groupMemberViews(db: Executor, groupIds: readonly string[], kind: 'hold' | 'booking', now: Date): Promise<Map<string, GroupMemberView[]>> {
  const out = new Map<string, GroupMemberView[]>();
  for (const m of await loadGroupMembers(db, [...new Set(groupIds)], kind)) out.set(m.groupId, [...(out.get(m.groupId) ?? []), memberView(m, now)]);
  return out;
}

/** The members of the groups among `rows`, as answers show them (no query when none is a group member). */
export function membersOf(db: Executor, rows: readonly { groupId: string | null }[], kind: 'hold' | 'booking', now: Date): Promise<Map<string, GroupMemberView[]>> {
  const ids = rows.map((r) => r.groupId).filter((g): g is string => !!g);
  return ids.length ? groupMemberViews(db, ids, kind, now) : Promise.resolve(new Map());
}
