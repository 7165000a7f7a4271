import { eq } from 'drizzle-orm';
import type { Executor, Tx } from '@/db/client';
import { calendars, meetingClasses } from '@/db/schema';
import { hasPermission, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { bufferMs, type RequestPolicy } from '../scheduling';
import type { AuditActor } from '../audit';
import { requestPolicy } from './claimTarget';
import type { ClaimRow, LoadedClaim, SchedulingTarget } from './claimTarget';

/**
 * What a reschedule of one booking and of a group share (docs/api.md "Reschedule"): who moves
 * (an agent or the owner), who may, the booking's own class and calendar it is arbitrated on,
 * and the policy and audit actor of the move. rescheduleService.ts moves one booking,
 * groupReschedule.ts a group.
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

/** The booking's owner; for a member of a group booking, the group and every member's owner (docs/groups.md "Reschedule"). */
export type BookingOwner = { customerId: string; ownerId: string; email: string; group?: { id: string; owners: { ownerId: string; email: string }[] } };

export const notFound = () => new DomainError('BOOKING_NOT_FOUND', 'Booking not found');

/** Only the booking's own agent, or an agent managing the customer, moves or edits an agent's booking. */
export function assertMayChange(actor: AgentActor, row: Pick<ClaimRow, 'agentId'>, what: 'move' | 'edit'): void {
  if (row.agentId !== actor.agentId && !hasPermission(actor, 'manage_customer')) {
    throw new DomainError('permission_denied:manage_customer', `Only the booking's own agent, or an agent with manage_customer, may ${what} it`);
  }
}

/** The booking's own class and calendar: a move keeps both. */
export async function bookingTarget(tx: Executor, owner: SchedulingTarget['owner'], row: ClaimRow): Promise<SchedulingTarget> {
  const [meetingClass] = row.meetingClassId ? await tx.select().from(meetingClasses).where(eq(meetingClasses.id, row.meetingClassId)) : [];
  const [calendar] = meetingClass && row.calendarId ? await tx.select().from(calendars).where(eq(calendars.id, row.calendarId)) : [];
  const withoutCredentials = calendar ? (({ credentials: _credentials, ...rest }) => rest)(calendar) : null;
  return moveTarget(owner, meetingClass ?? null, withoutCredentials);
}

/**
 * The target a move is arbitrated on, from the booking's class and calendar as read (by
 * bookingTarget, or with the locks in one statement: db/hot/move.ts): refused without a class
 * (an imported meeting), or when its calendar is gone, disconnected or needs re-authorising.
 */
export function moveTarget(owner: SchedulingTarget['owner'], meetingClass: SchedulingTarget['meetingClass'] | null, calendar: SchedulingTarget['calendar'] | null): SchedulingTarget {
  if (!meetingClass) throw new DomainError('BOOKING_NOT_ACTIVE', 'The booking has no meeting class to arbitrate with (an imported meeting); it cannot be moved here');
  if (!calendar || calendar.status === 'disconnected') throw new DomainError('CALENDAR_NOT_FOUND', `The calendar of this booking was disconnected`);
  if (calendar.status === 'reauth_required') throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendar.type} calendar of ${owner.email} needs to be re-authorised`);
  return { owner, calendar, meetingClass };
}

/** A booking row read locked may be moved: the mover may change it (an agent), and it is confirmed. */
export function assertMovable(mover: Mover, row: ClaimRow): void {
  if (mover.kind === 'agent') assertMayChange(mover.actor, row, 'move');
  if (row.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is ${row.status}; only a confirmed booking can be moved`);
}

/** Who the audit rows name for a move. */
export const moverActor = (mover: Mover): AuditActor => (mover.kind === 'agent' ? { kind: 'agent', agentId: mover.actor.agentId } : { kind: 'owner', ownerId: mover.ownerId, email: mover.email });

/**
 * The policy a move is arbitrated with: the agent's (its preempt permission), or the owner's in
 * the dashboard (the class's own policy); with the buffers the booking was made with, which a
 * move keeps (docs/arbitration.md "Buffers").
 */
export function moverPolicy(mover: Mover, target: SchedulingTarget, booking: Pick<ClaimRow, 'bufferBeforeMinutes' | 'bufferAfterMinutes'>): RequestPolicy {
  const base: RequestPolicy =
    mover.kind === 'agent'
      ? requestPolicy(mover.actor, target)
      : mover.policy
        ? mover.policy(target)
        : { priority: target.meetingClass.priority, preemptPolicy: target.meetingClass.preemptPolicy, agentCanPreempt: target.meetingClass.preemptPolicy === 'preempt_lower' };
  return { ...base, ...bufferMs(booking.bufferBeforeMinutes, booking.bufferAfterMinutes) };
}
