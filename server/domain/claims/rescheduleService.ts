import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '@/db/client';
import { calendars, claims, meetingClasses, owners } from '@/db/schema';
import { assertOwnerInScope, hasPermission, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import type { RequestPolicy } from '../scheduling';
import type { AuditActor } from './audit';
import { requestPolicy, runClaim } from './claimDecision';
import { ownerQueueKey, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { loadAround, lockOwner, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { bookingView, type BookingView } from './views';
import { assertBookingSpan } from './windows';

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
 * Groups (docs/api.md "Reschedule"): a booking of a group moves with its group, as a whole;
 * this moves one booking.
 */

export type RescheduleInput = { start: Date; end: Date; reason?: string | null };

/** Who moves the booking: an agent through the API, or the owner in the dashboard (`confirmPreemption` as for an approval). */
export type Mover =
  | { kind: 'agent'; actor: AgentActor }
  | {
      kind: 'owner';
      customerId: string;
      ownerId: string;
      email: string;
      confirmPreemption?: (tx: Tx, around: LoadedClaim[], target: SchedulingTarget, policy: RequestPolicy, start: Date, end: Date) => Promise<void>;
      /** The policy to arbitrate with, when not the class's own: an approved request to move runs with its meeting type's (docs/public-scheduling.md "Asking to move"). */
      policy?: (target: SchedulingTarget) => RequestPolicy;
      /** The attendee who asked for the new time: their answer stays accepted. */
      keepAccepted?: string | null;
      /** Facts the reschedule's audit row carries besides its own (the request to move). */
      auditDetails?: Record<string, unknown>;
    };

type BookingOwner = { customerId: string; ownerId: string; email: string };

const notFound = () => new DomainError('BOOKING_NOT_FOUND', 'Booking not found');

/**
 * The owner of a booking the mover may see, read before the queue (it names the queue and
 * the calendar gate, as an approval's proposal owner does); BOOKING_NOT_FOUND otherwise.
 */
export async function bookingOwner(db: Executor, mover: Mover, bookingId: string): Promise<BookingOwner> {
  if (!isUuid(bookingId)) throw notFound();
  const customerId = mover.kind === 'agent' ? mover.actor.customerId : mover.customerId;
  const [row] = await db
    .select({ ownerId: owners.id, email: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.id, bookingId.toLowerCase()), eq(claims.customerId, customerId), eq(claims.kind, 'booking')))
    .limit(1);
  if (!row || (mover.kind === 'owner' && row.ownerId !== mover.ownerId)) throw notFound();
  if (mover.kind === 'agent') assertOwnerInScope(mover.actor, row.email);
  return { customerId, ownerId: row.ownerId, email: row.email };
}

/** The booking row, locked, after the owner lock: it must be confirmed, and the mover allowed to move it. */
async function lockBooking(tx: Executor, mover: Mover, owner: BookingOwner, bookingId: string): Promise<ClaimRow> {
  const [row] = await tx
    .select()
    .from(claims)
    .where(and(eq(claims.id, bookingId.toLowerCase()), eq(claims.customerId, owner.customerId), eq(claims.kind, 'booking')))
    .for('update');
  if (!row) throw notFound();
  if (mover.kind === 'agent') assertMayChange(mover.actor, row, 'move');
  if (row.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is ${row.status}; only a confirmed booking can be moved`);
  return row;
}

/** Only the booking's own agent, or an agent managing the customer, moves or edits an agent's booking. */
export function assertMayChange(actor: AgentActor, row: Pick<ClaimRow, 'agentId'>, what: 'move' | 'edit'): void {
  if (row.agentId !== actor.agentId && !hasPermission(actor, 'manage_customer')) {
    throw new DomainError('permission_denied:manage_customer', `Only the booking's own agent, or an agent with manage_customer, may ${what} it`);
  }
}

/** The booking's own class and calendar: a move keeps both. */
async function bookingTarget(tx: Executor, owner: SchedulingTarget['owner'], row: ClaimRow): Promise<SchedulingTarget> {
  const [meetingClass] = row.meetingClassId ? await tx.select().from(meetingClasses).where(eq(meetingClasses.id, row.meetingClassId)) : [];
  if (!meetingClass) throw new DomainError('BOOKING_NOT_ACTIVE', 'The booking has no meeting class to arbitrate with (an imported meeting); it cannot be moved here');
  const [calendar] = row.calendarId ? await tx.select().from(calendars).where(eq(calendars.id, row.calendarId)) : [];
  if (!calendar || calendar.status === 'disconnected') throw new DomainError('CALENDAR_NOT_FOUND', `The calendar of this booking was disconnected`);
  if (calendar.status === 'reauth_required') throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendar.type} calendar of ${owner.email} needs to be re-authorised`);
  const { credentials: _credentials, ...withoutCredentials } = calendar;
  return { owner, calendar: withoutCredentials, meetingClass };
}

/**
 * POST /v1/bookings/{id}/reschedule (and the owner's move in the dashboard): the claim
 * operation the claim runner runs. `owner` comes from bookingOwner, read before the queue.
 */
export function rescheduleClaim(mover: Mover, owner: BookingOwner, bookingId: string, input: RescheduleInput, now: Date, idempotencyKey: string | null): ClaimOperation<BookingView> {
  assertBookingSpan(input.start, input.end);
  return {
    queueKey: ownerQueueKey(owner.customerId, owner.email),
    gatesCalendars: true,
    slot: slotKey(input.start, input.end),
    run: async (tx, gate): Promise<Answer<BookingView>> => {
      const ownerRow = await lockOwner(tx, owner.ownerId);
      const row = await lockBooking(tx, mover, owner, bookingId);
      const target = await bookingTarget(tx, ownerRow, row);
      const around = await loadAround(tx, ownerRow.id, input.start, input.end, now, undefined, gate);
      const actor: AuditActor = mover.kind === 'agent' ? { kind: 'agent', agentId: mover.actor.agentId } : { kind: 'owner', ownerId: mover.ownerId, email: mover.email };
      const policy: RequestPolicy =
        mover.kind === 'agent'
          ? requestPolicy(mover.actor, target)
          : mover.policy
            ? mover.policy(target)
            : { priority: target.meetingClass.priority, preemptPolicy: target.meetingClass.preemptPolicy, agentCanPreempt: target.meetingClass.preemptPolicy === 'preempt_lower' };
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
