import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { lockHoldForConfirm, type LockedHold } from '@/db/hot/holds';
import { claims, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import type { OwnerActor } from '../adminAudit';
import { DomainError } from '../errors';
import { getMeetingClass } from '../meetingClassService';
import { enqueueNotification } from '../notificationService';
import { writeAudit } from './audit';
import { cancellationRecords } from './cancellation';
import { applyBookings, groupBookingView, groupHoldView, groupRunnerFields, lockOwnersInOrder, MAX_GROUP_OWNERS } from './groupService';
import { decideMembers, type MemberPlan } from './groupVerdict';
import { claimMadeWithKey, type NewClaim } from './claimStore';
import { requestPolicy } from './claimDecision';
import { ClaimRedirect, runClaimOperation, type Answer, type ClaimOperation } from './claimRunner';
import { loadAround } from './claimTarget';
import { loadGroupMembers, memberView, type GroupMemberRow } from './groupMembers';
import { holdStatus, type BookingView, type HoldView } from './views';
import { holdParts, releaseHold } from './holdService';
import { assertSlotInHold, cancelBooking, confirmClaim, newBooking } from './bookingService';

/**
 * After a group's claim (docs/groups.md, "Confirm, cancel, release"): finding the group a
 * member's id or the group_id names, and confirming, cancelling or releasing every member in
 * one transaction, owners locked in owner-id order. The claims themselves: groupService.ts.
 */

/** The group a hold or booking id names: the claim itself (a member) or the group's id. */
async function findGroupOf(db: Executor, actor: AgentActor, id: string, kind: 'hold' | 'booking'): Promise<{ groupId: string; members: { id: string; ownerEmail: string }[] } | null> {
  const rows = await db
    .select({ id: claims.id, groupId: claims.groupId, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.customerId, actor.customerId), eq(claims.kind, kind), isNull(claims.partOfHoldId), or(eq(claims.id, id), eq(claims.groupId, id))))
    .limit(MAX_GROUP_OWNERS + 1);
  const groupId = rows.find((r) => r.groupId)?.groupId;
  if (!groupId) return null;
  const members = rows.filter((r) => r.groupId === groupId);
  // Named by a member's id: read the whole group.
  if (members.length === 1 && members[0].id === id) {
    const all = await loadGroupMembers(db, [groupId], kind);
    return { groupId, members: all.map((m) => ({ id: m.id, ownerEmail: m.ownerEmail })) };
  }
  return { groupId, members: members.map((m) => ({ id: m.id, ownerEmail: m.ownerEmail })) };
}

/** The id is a group's (or a member's of one): the group, else null (a single claim: the caller goes its usual way). */
export async function groupNamedBy(db: Executor, actor: AgentActor, id: string, kind: 'hold' | 'booking'): Promise<{ groupId: string; members: { id: string; ownerEmail: string }[] } | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const group = await findGroupOf(db, actor, id, kind);
  if (group) for (const m of group.members) assertOwnerInScope(actor, m.ownerEmail);
  return group;
}

type ConfirmInput = { start: Date; end: Date; meetingClass?: string; attendees?: { email: string; name?: string }[]; title?: string; description?: string };

/**
 * POST /v1/bookings/{id}/confirm on a group hold (a member's id or the group_id): every member
 * hold promoted to a booking (sharing the group's id), all or none.
 */
export function groupConfirmClaim(
  actor: AgentActor,
  group: { groupId: string; members: { id: string; ownerEmail: string }[] },
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
): ClaimOperation<BookingView> {
  const emails = [...new Set(group.members.map((m) => m.ownerEmail))];
  return {
    ...groupRunnerFields(actor, emails),
    gateOwners: undefined,
    run: async (tx) => {
      await lockOwnersInOrder(tx, actor.customerId, emails);
      const holds = await loadGroupMembers(tx, [group.groupId], 'hold');
      const locked: LockedHold[] = [];
      for (const h of holds) {
        const l = await lockHoldForConfirm(tx, h.id, actor.customerId, input.meetingClass);
        if (!l) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
        assertOwnerInScope(actor, l.owner.email);
        locked.push(l);
      }
      if (!locked.length) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
      const statuses = locked.map((l) => holdStatus(l.hold, now));
      if (statuses.every((s) => s === 'promoted')) {
        const made = await claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now);
        if (made && made.groupId === group.groupId) return { ok: true, value: await groupBookingView(tx, actor, made.id, now) };
        throw new DomainError('HOLD_ALREADY_PROMOTED', 'This group hold was already confirmed into bookings', { extra: { booking_id: locked[0].hold.promotedBookingId } });
      }
      for (const s of statuses) {
        if (s === 'promoted') throw new DomainError('HOLD_ALREADY_PROMOTED', 'A member of this group hold was already confirmed');
        if (s === 'expired') throw new DomainError('HOLD_EXPIRED', 'The group hold expired before it was confirmed');
        if (s !== 'active') throw new DomainError('HOLD_NOT_ACTIVE', s === 'preempted' ? 'The group hold was preempted by a higher-priority meeting' : 'The group hold was released');
      }
      const plans: MemberPlan[] = [];
      const claimsByOwner = new Map<string, NewClaim>();
      const withParts = new Set<string>();
      for (const l of locked) {
        const parts = await holdParts(tx, l.hold);
        if (parts.length) withParts.add(l.hold.id);
        assertSlotInHold(l.hold, input.start, input.end, l.owner.timeZone, parts);
        if (l.calendar.status === 'reauth_required') throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${l.calendar.type} calendar of ${l.owner.email} needs to be re-authorised`);
        if (l.calendar.status === 'disconnected') throw new DomainError('CALENDAR_NOT_FOUND', `The ${l.calendar.type} calendar of ${l.owner.email} was disconnected`);
        const meetingClass = l.meetingClass ?? (await getMeetingClass(tx, actor.customerId, input.meetingClass!));
        const target = { owner: l.owner, calendar: l.calendar, meetingClass };
        const around = await loadAround(tx, l.owner.id, input.start, input.end, now);
        plans.push({ target, policy: requestPolicy(actor, target), around, excludeClaimIds: [l.hold.id] });
        claimsByOwner.set(l.owner.id, {
          ...newBooking({ actor, ownerId: l.owner.id, calendarId: l.calendar.id, meetingClassId: meetingClass.id, start: input.start, end: input.end, now, idempotencyKey, holdId: l.hold.id }, input),
          groupId: group.groupId,
        });
      }
      const refused = await decideMembers(tx, actor, 'booking.confirm', group.groupId, plans, input, idempotencyKey, now);
      if (refused) return { ok: false, error: refused };
      const named = plans.map((p) => p.target);
      return applyBookings(tx, plans, claimsByOwner, 'booking.confirm', now, named, withParts);
    },
  };
}

/** A group named by a member's id or its own (groupNamedBy). */
type NamedGroup = { groupId: string; members: { id: string; ownerEmail: string }[] };

/**
 * Act on a whole group (cancel, release) through the claim runner: every owner's queue, the
 * owner rows locked in owner-id order, then `fn` with the members of this kind.
 */
function onWholeGroup<T>(db: Db, actor: { customerId: string }, group: NamedGroup, kind: 'hold' | 'booking', fn: (tx: Tx, members: GroupMemberRow[]) => Promise<Answer<T>>): Promise<T> {
  const emails = [...new Set(group.members.map((m) => m.ownerEmail))];
  return runClaimOperation(db, {
    ...groupRunnerFields(actor, emails),
    gateOwners: undefined,
    run: async (tx) => {
      await lockOwnersInOrder(tx, actor.customerId, emails);
      return fn(tx, await loadGroupMembers(tx, [group.groupId], kind));
    },
  });
}

/**
 * Cancel a group booking (a member's id or the group_id): every confirmed member cancelled in
 * one transaction, owners locked in owner-id order; each member's agent hears of it when
 * someone else cancelled; one audit row per owner.
 */
export function groupCancel(db: Db, actor: AgentActor, group: NamedGroup, namedId: string, reason: string | undefined, now: Date, idempotencyKey: string | null): Promise<BookingView> {
  return onWholeGroup(db, actor, group, 'booking', async (tx, members) => {
      const live = members.filter((m) => m.status === 'confirmed');
      if (!live.length) throw new DomainError('BOOKING_NOT_ACTIVE', `The group booking is already ${members[0]?.status ?? 'gone'}`);
      await tx
        .update(claims)
        .set({ status: 'cancelled', statusReason: reason ?? null, updatedAt: now })
        .where(inArray(claims.id, live.map((m) => m.id)));
      for (const m of live) {
        const { audit, notice } = cancellationRecords(actor, m, reason, idempotencyKey, now, group.groupId);
        defer(tx, writeAudit(tx, audit));
        if (notice) await enqueueNotification(tx, notice);
      }
      const first = members.find((m) => m.id === namedId) ?? members[0];
      return { ok: true, value: await groupBookingView(tx, actor, first.id, now) };
  });
}

/**
 * An owner cancels, from the dashboard, a group booking they host (docs/groups.md "Confirm,
 * cancel, release"; docs/dashboard.md "Calendar"): cancel cancels all, as for an agent. Every
 * confirmed member is cancelled with the owner's reason in one transaction, owners locked in
 * owner-id order; one `booking.cancel` audit row per owner naming the owner who acted, and each
 * member's agent told with `booking.cancelled` and `group_id`. The owner's own member must
 * still be confirmed (BOOKING_NOT_ACTIVE otherwise). Answers the members cancelled.
 */
export async function ownerCancelGroup(db: Db, actor: OwnerActor, groupId: string, reason: string, now: Date): Promise<GroupMemberRow[]> {
  const members = await loadGroupMembers(db, [groupId], 'booking');
  const group: NamedGroup = { groupId, members: members.map((m) => ({ id: m.id, ownerEmail: m.ownerEmail })) };
  return onWholeGroup(db, actor, group, 'booking', async (tx, locked) => {
    const own = locked.find((m) => m.ownerId === actor.ownerId && m.customerId === actor.customerId);
    if (!own) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
    if (own.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is already ${own.status}`);
    const live = locked.filter((m) => m.status === 'confirmed');
    await tx
      .update(claims)
      .set({ status: 'cancelled', statusReason: reason, updatedAt: now })
      .where(inArray(claims.id, live.map((m) => m.id)));
    for (const m of live) {
      const { audit, notice } = cancellationRecords(actor, m, reason, null, now, groupId);
      defer(tx, writeAudit(tx, audit));
      if (notice) await enqueueNotification(tx, notice);
    }
    return { ok: true, value: live };
  });
}

/** Release a group hold (DELETE /v1/holds/{id} on a member or the group_id): every active member released together. */
export function groupRelease(db: Db, actor: AgentActor, group: NamedGroup, namedId: string, now: Date): Promise<HoldView> {
  return onWholeGroup(db, actor, group, 'hold', async (tx, members) => {
      const first = members.find((m) => m.id === namedId) ?? members[0];
      const status = (m: (typeof members)[number]) => memberView(m, now).status;
      if (members.every((m) => status(m) === 'released')) return { ok: true, value: await groupHoldView(tx, actor, first.id, now) };
      if (members.some((m) => status(m) === 'promoted')) throw new DomainError('HOLD_ALREADY_PROMOTED', 'The group hold was already confirmed into bookings; cancel the booking instead');
      if (members.some((m) => status(m) === 'expired')) throw new DomainError('HOLD_EXPIRED', 'The group hold expired before it was released');
      if (members.some((m) => status(m) === 'preempted')) throw new DomainError('HOLD_NOT_ACTIVE', 'The group hold was preempted by a higher-priority meeting');
      // Every member and every further range of an all_free member.
      await tx
        .update(claims)
        .set({ status: 'released', statusReason: 'released by agent', updatedAt: now })
        .where(and(eq(claims.groupId, group.groupId), eq(claims.kind, 'hold'), eq(claims.status, 'active')));
      return { ok: true, value: await groupHoldView(tx, actor, first.id, now) };
  });
}

/**
 * POST /v1/bookings/{id}/confirm, run through `claim` (the REST wrapper's): a single hold's
 * confirm first, whose locking read also tells whether the id names a group hold (a member's
 * id, or no hold's id: perhaps a group_id); only then is the group looked up and confirmed, or,
 * when the id names no group either, the single confirm answers it (HOLD_NOT_FOUND). A single
 * hold's confirm, by far the usual one, so pays no look-up of its own before its transaction
 * (docs/benchmarks/history/2026-11-26-hold-confirm-cpu.md).
 */
export async function confirmAny(
  db: Executor,
  actor: AgentActor,
  id: string,
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
  claim: (operation: ClaimOperation<BookingView>) => Promise<BookingView>,
): Promise<BookingView> {
  try {
    return await claim(confirmClaim(actor, id, input, now, idempotencyKey, { groupsUnchecked: true }));
  } catch (err) {
    if (!(err instanceof ClaimRedirect)) throw err;
  }
  const group = await groupNamedBy(db, actor, id, 'hold');
  return claim(group ? groupConfirmClaim(actor, group, input, now, idempotencyKey) : confirmClaim(actor, id, input, now, idempotencyKey));
}

/** POST /v1/bookings/{id}/cancel: a whole group (a member's id or the group_id) or a single booking. */
export async function cancelAny(db: Db, actor: AgentActor, id: string, reason: string | undefined, now: Date, idempotencyKey: string | null): Promise<BookingView> {
  const group = await groupNamedBy(db, actor, id, 'booking');
  return group ? groupCancel(db, actor, group, id, reason, now, idempotencyKey) : cancelBooking(db, actor, id, reason, now, idempotencyKey);
}

/** DELETE /v1/holds/{id}: a whole group hold (a member's id or the group_id) or a single hold. */
export async function releaseAny(db: Db, actor: AgentActor, id: string, now: Date): Promise<HoldView> {
  const group = await groupNamedBy(db, actor, id, 'hold');
  return group ? groupRelease(db, actor, group, id, now) : releaseHold(db, actor, id, now);
}
