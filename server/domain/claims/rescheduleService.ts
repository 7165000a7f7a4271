import type { Executor } from '@/db/client';
import { bookingOwnerRows, lockMove } from '@/db/hot/move';
import { metrics, secondsSince } from '@/server/observability/metrics';
import { withSpan } from '@/server/observability/tracing';
import { assertOwnerInScope } from '../access';
import { isUuid } from '../ids';
import { runClaim } from './claimDecision';
import { ownerQueueKey, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { loadAround, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { groupRescheduleClaim, type GroupBookingOwner } from './groupReschedule';
import { assertMovable, moverActor, moverPolicy, moveTarget, notFound, type BookingOwner, type Mover, type RescheduleInput } from './moveRules';
import { loadGroupMembers, MAX_GROUP_OWNERS } from './groupMembers';
import { bookingView, type BookingView } from './views';
import { assertBookingSpan } from './windows';

export type { BookingOwner, Mover, RescheduleInput } from './moveRules';

/**
 * Reschedule: a confirmed booking moves to a new time in place (docs/api.md "Reschedule").
 * It is a claim like any other and takes the one claim path (claimRunner.ts): the owner's
 * queue, the owner's calendar gate, the owner lock, the claims around its new time and the
 * same pure arbitration, with the booking itself set aside (runClaim's `moves`): its old
 * time never blocks its new time, and its minutes move from the old day to the new one.
 * Accepted: one UPDATE moves its range (the exclusion constraint has the last word), what
 * gives way is preempted and told, as for a new booking. Refused: the booking is unchanged
 * and the refusal carries the usual reason, conflicts and alternatives.
 *
 * Groups (docs/api.md "Reschedule", docs/groups.md "Reschedule"): a booking of a group moves
 * with its group, as a whole: every member in one transaction or none (groupReschedule.ts).
 */

/**
 * The owner of a booking the mover may see, read before the queue (it names the queue and
 * the calendar gate, as an approval's proposal owner does); BOOKING_NOT_FOUND otherwise.
 */
export async function bookingOwner(db: Executor, mover: Mover, bookingId: string): Promise<BookingOwner> {
  if (!isUuid(bookingId)) throw notFound();
  const customerId = mover.kind === 'agent' ? mover.actor.customerId : mover.customerId;
  // A booking id, or a group's id (docs/groups.md "Reschedule": the group moves as a whole, as for cancel).
  const id = bookingId.toLowerCase();
  const found = await bookingOwnerRows(db, id, customerId, MAX_GROUP_OWNERS);
  const row = found.find((r) => r.id === id) ?? found.find((r) => mover.kind === 'agent' || r.ownerId === mover.ownerId);
  if (!row || (mover.kind === 'owner' && row.ownerId !== mover.ownerId)) throw notFound();
  if (mover.kind === 'agent') assertOwnerInScope(mover.actor, row.email);
  const owner: BookingOwner = { customerId, ownerId: row.ownerId, email: row.email };
  if (!row.groupId) return owner;
  // A group member moves with its group: the agent must have every member's owner in scope.
  const members = (await loadGroupMembers(db, [row.groupId], 'booking')).filter((m) => m.customerId === customerId);
  if (mover.kind === 'agent') for (const m of members) assertOwnerInScope(mover.actor, m.ownerEmail);
  return { ...owner, group: { id: row.groupId, owners: members.map((m) => ({ ownerId: m.ownerId, email: m.ownerEmail })) } };
}

/**
 * The owner row and the booking row, locked in that order, with the booking's class and
 * calendar, in one statement (db/hot/move.ts LOCK_MOVE): the booking must be confirmed, the
 * mover allowed to move it, its class and calendar usable. Refusals come in that order.
 */
export async function lockBooking(tx: Executor, mover: Mover, owner: BookingOwner, bookingId: string): Promise<{ row: ClaimRow; target: SchedulingTarget }> {
  const asked = process.hrtime.bigint();
  // The owner row lock a claim decision waits for (its span, docs/operations.md "Traces").
  const locked = await withSpan('claim.lock_wait', { 'customer.id': owner.customerId }, () => lockMove(tx, owner.ownerId, bookingId.toLowerCase(), owner.customerId));
  metrics().claimLockWait.observe(secondsSince(asked));
  if (!locked) throw notFound();
  assertMovable(mover, locked.booking);
  return { row: locked.booking, target: moveTarget(locked.owner, locked.meetingClass, locked.calendar) };
}

/**
 * POST /v1/bookings/{id}/reschedule (and the owner's move in the dashboard): the claim
 * operation the claim runner runs. `owner` comes from bookingOwner, read before the queue.
 */
export function rescheduleClaim(mover: Mover, owner: BookingOwner, bookingId: string, input: RescheduleInput, now: Date, idempotencyKey: string | null): ClaimOperation<BookingView> {
  assertBookingSpan(input.start, input.end);
  if (owner.group) return groupRescheduleClaim(mover, owner as GroupBookingOwner, bookingId, input, now, idempotencyKey);
  return {
    queueKey: ownerQueueKey(owner.customerId, owner.email),
    gatesCalendars: true,
    slot: slotKey(input.start, input.end),
    run: async (tx, gate): Promise<Answer<BookingView>> => {
      // One pipeline, as a direct booking's
      // (docs/benchmarks/history/2026-11-26-reschedule.md): the locks with the class and calendar first on the connection, then, read
      // under them, the owner's due holds expired and the claims and busy time around.
      const locking = lockBooking(tx, mover, owner, bookingId);
      const loading = loadAround(tx, owner.ownerId, input.start, input.end, now, undefined, gate);
      loading.catch(() => {}); // awaited below, or in finally when the locks refuse
      let locked: Awaited<typeof locking>;
      let around: LoadedClaim[];
      try {
        locked = await locking;
        around = await loading;
      } finally {
        // Whatever the answer, the reads (and the expiry's notifications) finish inside the transaction.
        await loading.catch(() => {});
      }
      const { row, target } = locked;
      const ownerRow = target.owner;
      const actor = moverActor(mover);
      const policy = moverPolicy(mover, target, row);
      const others = around.filter((c) => c.id !== row.id);
      if (mover.kind === 'owner' && mover.confirmPreemption) await mover.confirmPreemption(tx, others, target, policy, input.start, input.end);
      const r = await runClaim(tx, {
        action: 'booking.reschedule',
        target,
        policy,
        around,
        actor,
        now,
        claim: { ...row, startAt: input.start, endAt: input.end, holdId: null, idempotencyKey, agentId: mover.kind === 'agent' ? mover.actor.agentId : row.agentId },
        moves: { from: row, reason: input.reason ?? null, timeZone: ownerRow.timeZone, keepAccepted: mover.kind === 'owner' ? mover.keepAccepted : null },
        auditDetails: mover.kind === 'owner' ? mover.auditDetails : undefined,
        preemptionReason: `moved aside by "${row.title ?? 'a meeting'}" (${target.meetingClass.name}), rescheduled to this time`,
      });
      if (!r.ok) return r;
      return {
        ok: true,
        value: bookingView(r.row, { ownerEmail: ownerRow.email, timeZone: ownerRow.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, preemptedIds: r.preemptedIds, preemptedClaims: r.preemptedClaims, warnings: r.warnings }),
      };
    },
  };
}
