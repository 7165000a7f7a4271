import type { Tx } from '@/db/client';
import type { LockedHold } from '@/db/hot/holds';
import type { AgentActor } from '../access';
import { DomainError } from '../errors';
import { getMeetingClass } from '../meetingClassService';
import { localSpan } from '../scheduling';
import type { BookingDetails, VideoSetting } from './bookingService';
import type { ClaimRow, SchedulingTarget } from './claimTarget';
import { holdParts } from './holdService';
import { holdStatus, type HoldRange, type HoldStatus } from './views';

/**
 * What a hold's confirm asks for and what makes a held member promotable (docs/arbitration.md
 * "Holds"): shared by the one confirm path (holdConfirm.ts) and a series' scoped confirm
 * (seriesLifecycle.ts).
 */
export type ConfirmInput = BookingDetails & { start: Date; end: Date; meetingClass?: string; video?: VideoSetting | null };

/** Refuse a member not active (`subject`: the hold or the group hold). */
export function assertActive(status: HoldStatus, subject: string): void {
  if (status === 'expired') throw new DomainError('HOLD_EXPIRED', `${subject} expired before it was confirmed`);
  if (status !== 'active') throw new DomainError('HOLD_NOT_ACTIVE', status === 'preempted' ? `${subject} was preempted by a higher-priority meeting` : `${subject} was released`);
}

/** A member the slot may promote: its further ranges (all_free), the slot inside it, its calendar usable, the class the booking takes. */
export async function memberTarget(tx: Tx, actor: AgentActor, locked: LockedHold, input: ConfirmInput): Promise<{ target: SchedulingTarget; parts: HoldRange[] }> {
  const { owner, hold, calendar } = locked;
  // An all_free window hold: the slot may lie in any of its ranges; the others are released with the promotion.
  const parts = await holdParts(tx, hold);
  assertSlotInHold(hold, input.start, input.end, owner.timeZone, parts);
  if (calendar.status === 'reauth_required') throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendar.type} calendar of ${owner.email} needs to be re-authorised`);
  if (calendar.status === 'disconnected') throw new DomainError('CALENDAR_NOT_FOUND', `The ${calendar.type} calendar of ${owner.email} was disconnected`);
  // A named class that does not exist: getMeetingClass throws its error.
  const meetingClass = locked.meetingClass ?? (await getMeetingClass(tx, actor.customerId, input.meetingClass!));
  return { target: { owner, calendar, meetingClass }, parts };
}

/**
 * A single hold a scoped series confirm promotes (seriesLifecycle.ts): refused unless active (its
 * status's error), then as any member: the slot inside it, its calendar usable, the class.
 */
export async function confirmTarget(tx: Tx, actor: AgentActor, locked: LockedHold, input: ConfirmInput, now: Date): Promise<{ target: SchedulingTarget; parts: HoldRange[] }> {
  const status = holdStatus(locked.hold, now);
  if (status === 'promoted') throw new DomainError('HOLD_ALREADY_PROMOTED', 'This hold was already confirmed into a booking', { extra: { booking_id: locked.hold.promotedBookingId } });
  assertActive(status, 'The hold');
  return memberTarget(tx, actor, locked, input);
}

function assertSlotInHold(hold: ClaimRow, start: Date, end: Date, timeZone: string, parts: readonly HoldRange[] = []) {
  const s = start.getTime();
  const e = end.getTime();
  if (hold.holdScope === 'candidate') {
    if (s !== hold.startAt.getTime() || e !== hold.endAt.getTime()) {
      throw new DomainError('SLOT_OUTSIDE_HOLD', 'A candidate hold confirms only its exact start and end', { extra: { held_window: localSpan(hold.startAt, hold.endAt, timeZone) } });
    }
    return;
  }
  const duration = (hold.durationMinutes ?? 0) * 60_000;
  const ranges = [hold, ...parts];
  if (e - s !== duration || !ranges.some((r) => s >= r.startAt.getTime() && e <= r.endAt.getTime())) {
    const extra: Record<string, unknown> = { held_window: localSpan(hold.startAt, hold.endAt, timeZone), duration_minutes: hold.durationMinutes };
    if (parts.length) extra.held_windows = ranges.sort((a, b) => a.startAt.getTime() - b.startAt.getTime()).map((r) => localSpan(r.startAt, r.endAt, timeZone));
    throw new DomainError('SLOT_OUTSIDE_HOLD', `Confirm a slot of exactly ${hold.durationMinutes} minutes inside ${parts.length ? 'one of the held windows' : 'the held window'}`, { extra });
  }
}
