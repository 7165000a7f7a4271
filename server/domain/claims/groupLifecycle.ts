import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { claims, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import type { OwnerActor } from '../adminAudit';
import { runAnsweredClaim, type KeyAnswer } from './answeredClaim';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { enqueueNotification } from '../notificationService';
import { writeAudit } from '../audit';
import { noteFreed } from './freed';
import { cancellationRecords } from './cancellation';
import { groupRunnerFields, runClaimOperation, type Answer } from './claimRunner';
import { loadGroupMembers, loadMembers, lockOwnersInOrder, MAX_GROUP_OWNERS, memberView, type ClaimMemberRow, type GroupMemberRow, type NamedClaim } from './groupMembers';
import type { BookingView, HoldView } from './views';
import { getHold } from './holdService';
import { getBooking } from './bookingService';
import { recordSeriesCancelled, seriesNamedBy, type CancelScope } from './seriesCancel';

/**
 * After a group's claim (docs/groups.md, "Confirm, cancel, release"): finding the group a
 * member's id or the group_id names, and confirming, cancelling or releasing every member in
 * one transaction, owners locked in owner-id order. The claims themselves: groupService.ts.
 */

/**
 * The claim a hold or booking id names, of N >= 1 members: a single claim (its own id), or a
 * group (a member's id or the group_id), every member scope-checked; null when the id names none.
 */
async function claimNamedBy(db: Executor, actor: AgentActor, id: string, kind: 'hold' | 'booking'): Promise<NamedClaim | null> {
  if (!isUuid(id)) return null;
  const rows = await db
    .select({ id: claims.id, groupId: claims.groupId, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.customerId, actor.customerId), eq(claims.kind, kind), isNull(claims.partOfHoldId), or(eq(claims.id, id), eq(claims.groupId, id))))
    .limit(MAX_GROUP_OWNERS + 1);
  const groupId = rows.find((r) => r.groupId)?.groupId;
  const named = !groupId
    ? rows.filter((r) => r.id === id).map((r) => ({ groupId: null, members: [{ id: r.id, ownerEmail: r.ownerEmail }] }))[0] ?? null
    : // Named by a member's id: read the whole group.
      { groupId, members: rows.length === 1 && rows[0].id === id ? (await loadGroupMembers(db, [groupId], kind)).map((m) => ({ id: m.id, ownerEmail: m.ownerEmail })) : rows.filter((r) => r.groupId === groupId) };
  if (named) for (const m of named.members) assertOwnerInScope(actor, m.ownerEmail);
  return named;
}

/**
 * Act on every member of a named claim (cancel, release) through the claim runner: every
 * owner's queue, the owner rows locked in owner-id order, then `fn` with the members. With a
 * request's Idempotency-Key record (`answer`), the accepted answer is stored in the same
 * transaction (runAnsweredClaim), so a retry after a COMMIT whose answer was lost replays it
 * instead of running again (docs/operations.md "High availability").
 */
function onMembers<T>(db: Db, actor: { customerId: string }, named: NamedClaim, kind: 'hold' | 'booking', fn: (tx: Tx, members: ClaimMemberRow[]) => Promise<Answer<T>>, answer: KeyAnswer | null = null): Promise<T> {
  const emails = [...new Set(named.members.map((m) => m.ownerEmail))];
  const operation = {
    ...groupRunnerFields(actor, emails),
    gateOwners: undefined,
    run: async (tx: Tx) => {
      await lockOwnersInOrder(tx, actor.customerId, emails);
      return fn(tx, await loadMembers(tx, named, kind));
    },
  };
  return answer ? runAnsweredClaim(db, operation, { answer }) : runClaimOperation(db, operation);
}

/** Cancel every confirmed member, one audit row and (when someone else cancels) one notice each; a group's name its group_id. */
async function cancelMembers(tx: Tx, actor: AgentActor | OwnerActor, live: readonly ClaimMemberRow[], reason: string | undefined, idempotencyKey: string | null, now: Date): Promise<void> {
  await tx
    .update(claims)
    .set({ status: 'cancelled', statusReason: reason ?? null, updatedAt: now })
    .where(inArray(claims.id, live.map((m) => m.id)));
  noteFreed(tx, now, live.map((m) => ({ ownerId: m.ownerId, start: m.startAt, end: m.endAt })));
  for (const m of live) {
    // A single booking's row names its hold; a group's names its group (docs/groups.md).
    const { audit, notice } = cancellationRecords(actor, m.groupId ? { ...m, holdId: undefined } : m, reason, idempotencyKey, now, m.groupId ?? undefined);
    defer(tx, writeAudit(tx, audit));
    if (notice) await enqueueNotification(tx, notice);
  }
}

/**
 * POST /v1/bookings/{id}/cancel: the booking the id names, of one member or a group's (a
 * member's id or the group_id): every confirmed member cancelled in one transaction, owners
 * locked in owner-id order; each member's agent hears of it when someone else cancelled; one
 * audit row per owner. Answers the booking named (a group's: with its members). `scope` (an
 * occurrence of a series): following or series cancels those occurrences still confirmed.
 * `answer`: the request's Idempotency-Key record, where the cancel's transaction stores its
 * answer (a retry whose first COMMIT's answer was lost replays it: cancelling again would answer
 * BOOKING_NOT_ACTIVE).
 */
export async function cancelClaim(db: Db, actor: AgentActor, id: string, reason: string | undefined, now: Date, idempotencyKey: string | null, scope: CancelScope = 'occurrence', answer: KeyAnswer | null = null): Promise<BookingView> {
  // An occurrence of a series with scope following or series: those occurrences, as the members of one claim (docs/arbitration.md "Recurring series").
  const named = scope === 'occurrence' ? await claimNamedBy(db, actor, id, 'booking') : await seriesNamedBy(db, actor, id, scope);
  if (!named) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  return onMembers(db, actor, named, 'booking', async (tx, members) => {
    const live = members.filter((m) => m.status === 'confirmed');
    if (!live.length) throw new DomainError('BOOKING_NOT_ACTIVE', `The ${named.groupId ? 'group booking' : 'booking'} is already ${members[0]?.status ?? 'gone'}`);
    await cancelMembers(tx, actor, live, reason, idempotencyKey, now);
    for (const event of recordSeriesCancelled(tx, actor, live, scope, reason, now)) defer(tx, event);
    const first = members.find((m) => m.id === id) ?? members[0];
    return { ok: true, value: await getBooking(tx, actor, first.id, now) };
  }, answer);
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
  const named: NamedClaim = { groupId, members: members.map((m) => ({ id: m.id, ownerEmail: m.ownerEmail })) };
  return onMembers(db, actor, named, 'booking', async (tx, locked) => {
    const own = locked.find((m) => m.ownerId === actor.ownerId && m.customerId === actor.customerId);
    if (!own) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
    if (own.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is already ${own.status}`);
    const live = locked.filter((m) => m.status === 'confirmed') as GroupMemberRow[];
    await cancelMembers(tx, actor, live, reason, null, now);
    return { ok: true, value: live };
  });
}

/**
 * An owner cancels, from the dashboard, an occurrence of a recurring series (docs/dashboard.md
 * "Recurring series"): it alone, it and the later ones, or the whole series, as an agent's cancel
 * with `scope` does (cancelClaim): the occurrences still confirmed cancelled in one transaction
 * through the claim runner, one `booking.cancel` audit row each naming the owner and the
 * series_id, and the series' agent told of each. The named occurrence must still be confirmed
 * for scope occurrence; for the others, at least one of those named (BOOKING_NOT_ACTIVE otherwise).
 */
export async function ownerCancelSeries(db: Db, actor: OwnerActor, id: string, scope: CancelScope, reason: string, now: Date): Promise<void> {
  const named = await seriesNamedBy(db, actor, id, scope);
  if (!named) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  await onMembers(db, actor, named, 'booking', async (tx, members) => {
    const live = members.filter((m) => m.status === 'confirmed');
    if (!live.length) throw new DomainError('BOOKING_NOT_ACTIVE', scope === 'occurrence' ? `The booking is already ${members[0]?.status ?? 'gone'}` : 'No occurrence of these is still booked');
    await cancelMembers(tx, actor, live, reason, null, now);
    return { ok: true, value: undefined };
  });
}

/**
 * DELETE /v1/holds/{id}: the hold the id names, of one member or a group's (a member's id or the
 * group_id): every active member, and every further range of an all_free member, released
 * together. Releasing twice answers the released hold again. `scope` (a hold of a series):
 * following or series releases those holds of the series still active, with the one named.
 * `answer`: the request's Idempotency-Key record, stored in the release's transaction.
 */
export async function releaseClaim(db: Db, actor: AgentActor, id: string, now: Date, scope: CancelScope = 'occurrence', answer: KeyAnswer | null = null): Promise<HoldView> {
  // A series' hold with scope following or series: those occurrences' holds still active, and the one named (docs/arbitration.md "Recurring series").
  const named = scope === 'occurrence' ? await claimNamedBy(db, actor, id, 'hold') : await seriesNamedBy(db, actor, id, scope, 'hold');
  if (!named) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
  const subject = named.groupId ? 'The group hold' : 'The hold';
  return onMembers(db, actor, named, 'hold', async (tx, all) => {
    const status = (m: ClaimMemberRow) => memberView(m, now).status;
    const members = scope === 'occurrence' ? all : all.filter((m) => m.id === id || status(m) === 'active');
    const first = members.find((m) => m.id === id) ?? members[0];
    if (members.every((m) => status(m) === 'released')) return { ok: true, value: await getHold(tx, actor, first.id, now) };
    if (members.some((m) => status(m) === 'promoted')) throw new DomainError('HOLD_ALREADY_PROMOTED', `${subject} was already confirmed into ${named.groupId ? 'bookings' : 'a booking'}; cancel the booking instead`);
    if (members.some((m) => status(m) === 'expired')) throw new DomainError('HOLD_EXPIRED', `${subject} expired before it was released`);
    if (members.some((m) => status(m) === 'preempted')) throw new DomainError('HOLD_NOT_ACTIVE', `${subject} was preempted by a higher-priority meeting`);
    const ids = members.map((m) => m.id);
    const released = await tx
      .update(claims)
      .set({ status: 'released', statusReason: 'released by agent', updatedAt: now })
      .where(and(eq(claims.kind, 'hold'), eq(claims.status, 'active'), or(inArray(claims.id, ids), inArray(claims.partOfHoldId, ids))))
      .returning({ id: claims.id, ownerId: claims.ownerId, start: claims.startAt, end: claims.endAt, partOf: claims.partOfHoldId });
    noteFreed(tx, now, released.map((r) => ({ ownerId: r.ownerId, start: r.start, end: r.end, holdId: r.partOf ?? r.id })));
    return { ok: true, value: await getHold(tx, actor, first.id, now) };
  }, answer);
}
