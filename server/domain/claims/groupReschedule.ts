import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { claims } from '@/db/schema';
import { DomainError } from '../errors';
import type { GroupMemberView } from '../notificationService';
import { runClaim } from './claimDecision';
import { ownerQueueKey, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { loadAround, lockOwner, type ClaimRow, type SchedulingTarget } from './claimTarget';
import { decideMembers, type MemberPlan } from './groupVerdict';
import { assertMayChange, bookingTarget, moverActor, moverPolicy, notFound, type BookingOwner, type Mover, type RescheduleInput } from './moveRules';
import { bookingView, type BookingView } from './views';

/**
 * Reschedule of a group booking (docs/groups.md "Reschedule"): a member of a group moves
 * with its group, every member in one transaction or none. The claim runner takes every
 * member owner's queue in one order and runs their calendar gates first (as a group
 * booking); the core locks the owner rows in owner-id order, then the member rows, and
 * arbitrates each member at the new time with its own owner's rules and its own class,
 * each set aside from its own claims around (it never conflicts with itself; its minutes
 * leave its old day). The group is decided by the same pure decideGroup as a new group
 * booking (groupService.ts decideMembers): refused, the answer names each refusing owner
 * with its reason, one audit row per owner, and nothing moves; accepted, every member moves
 * through runClaim's `moves` (one UPDATE each, preemptions announced once per claim).
 */

export type GroupBookingOwner = BookingOwner & { group: NonNullable<BookingOwner['group']> };

export function groupRescheduleClaim(mover: Mover, owner: GroupBookingOwner, bookingId: string, input: RescheduleInput, now: Date, idempotencyKey: string | null): ClaimOperation<BookingView> {
  const { customerId, group } = owner;
  const emails = [...new Set(group.owners.map((o) => o.email))];
  return {
    queueKey: ownerQueueKey(customerId, owner.email),
    queueKeys: emails.map((e) => ownerQueueKey(customerId, e)),
    gateOwners: emails.map((email) => ({ customerId, email })),
    slot: slotKey(input.start, input.end),
    action: 'booking.reschedule',
    run: (tx) => moveGroup(tx, mover, owner, bookingId, input, now, idempotencyKey),
  };
}

async function moveGroup(tx: Tx, mover: Mover, owner: GroupBookingOwner, bookingId: string, input: RescheduleInput, now: Date, idempotencyKey: string | null): Promise<Answer<BookingView>> {
  const { customerId, group } = owner;
  // Owners first, in owner-id order (the order of every group claim: no deadlock between them), then the members.
  const ownerIds = [...new Set(group.owners.map((o) => o.ownerId))].sort();
  const ownerRows = new Map<string, Awaited<ReturnType<typeof lockOwner>>>();
  for (const id of ownerIds) ownerRows.set(id, await lockOwner(tx, id));
  const rows = await tx
    .select()
    .from(claims)
    .where(and(eq(claims.customerId, customerId), eq(claims.groupId, group.id), eq(claims.kind, 'booking'), isNull(claims.partOfHoldId), inArray(claims.ownerId, ownerIds)))
    .orderBy(asc(claims.ownerId))
    .for('update');
  // The member named, or (the group's id named) the member at the owner bookingOwner chose.
  const named = rows.find((r) => r.id === bookingId.toLowerCase()) ?? (bookingId.toLowerCase() === group.id ? rows.find((r) => r.ownerId === owner.ownerId) : undefined);
  if (!named) throw notFound();
  if (named.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is ${named.status}; only a confirmed booking can be moved`);
  const members = rows.filter((r) => r.status === 'confirmed');
  if (mover.kind === 'agent') for (const r of members) assertMayChange(mover.actor, r, 'move');

  const targets = await Promise.all(members.map((r) => bookingTarget(tx, ownerRows.get(r.ownerId)!, r)));
  const arounds = await Promise.all(members.map((r) => loadAround(tx, r.ownerId, input.start, input.end, now)));
  // Each member with its own owner's rules and its own class, never in its own way.
  const plans: (MemberPlan & { row: ClaimRow })[] = members.map((row, i) => ({
    row,
    target: targets[i],
    policy: moverPolicy(mover, targets[i], row),
    around: arounds[i].filter((c) => c.id !== row.id),
    excludeClaimIds: [row.id],
  }));
  if (mover.kind === 'owner' && mover.confirmPreemption) {
    for (const p of plans) await mover.confirmPreemption(tx, p.around, p.target, p.policy, input.start, input.end);
  }
  const actor = moverActor(mover);
  const decider = mover.kind === 'agent' ? { customerId, agentId: mover.actor.agentId } : { customerId, agentId: null, actor };
  const refused = await decideMembers(tx, decider, 'booking.reschedule', group.id, plans, input, idempotencyKey, now);
  if (refused) return { ok: false, error: refused };

  const soFar = new Set<string>();
  const moved: { row: ClaimRow; target: SchedulingTarget; preemptedIds: string[]; preemptedClaims: { id: string; kind: 'hold' | 'booking' }[]; warnings: string[] }[] = [];
  for (const p of plans) {
    const r = await runClaim(tx, {
      action: 'booking.reschedule',
      target: p.target,
      policy: p.policy,
      around: p.around,
      actor,
      now,
      claim: { ...p.row, startAt: input.start, endAt: input.end, holdId: null, idempotencyKey, agentId: mover.kind === 'agent' ? mover.actor.agentId : p.row.agentId },
      moves: { from: p.row, reason: input.reason ?? null, timeZone: p.target.owner.timeZone },
      preemptionReason: `moved aside by "${p.row.title ?? 'a meeting'}" (${p.target.meetingClass.name}), rescheduled to this time with its group`,
      preemptedSoFar: soFar,
      auditDetails: { group_id: group.id },
    });
    // The same facts decided above: a refusal here means they changed under the lock; roll back every member.
    if (!r.ok) throw r.error;
    moved.push({ ...r, target: p.target });
  }
  const memberViews: GroupMemberView[] = rows.map((r) => ({ owner_email: ownerRows.get(r.ownerId)!.email, booking_id: r.id, status: r.status }));
  const mine = moved.find((m) => m.row.id === named.id)!;
  return {
    ok: true,
    value: bookingView(mine.row, {
      ownerEmail: mine.target.owner.email,
      timeZone: mine.target.owner.timeZone,
      meetingClass: mine.target.meetingClass.name,
      calendarType: mine.target.calendar.type,
      preemptedIds: moved.flatMap((m) => m.preemptedIds),
      preemptedClaims: moved.flatMap((m) => m.preemptedClaims),
      warnings: [...new Set(moved.flatMap((m) => m.warnings))],
      members: memberViews,
    }),
  };
}
