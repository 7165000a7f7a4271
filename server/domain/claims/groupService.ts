import type { Executor, Tx } from '@/db/client';
import type { AgentActor } from '../access';
import { newId } from '../ids';
import { type GroupMemberView } from '../notificationService';
import type { AuditAction, AuditActor } from '../audit';
import { claimMadeWithKey, type NewClaim } from './claimStore';
import { runClaim } from './claimDecision';
import { groupRunnerFields, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { groupOwnerEmails } from './groupMembers';
import { loadAround, loadTargets, requestPolicy, type SchedulingTarget } from './claimTarget';
import { bookingView, type BookingView } from './views';
import { assertBookingSpan } from './windows';
import { inOwnerOrder } from './windowHold';
import { getBooking, newBooking, type VideoSetting } from './bookingService';
import { memberVideoRequest } from '../calendars/videoLinks';
import { decideMembers, refuseGroupWithoutLock, type GroupTargetInput, type MemberPlan } from './groupVerdict';

/**
 * Group bookings (docs/groups.md, "Group holds and bookings"): one meeting of 2 to 20
 * owners, one claim per owner sharing a `group_id`, committed in one transaction or not at
 * all (a group's hold is holdService.ts's holdClaim, the one hold claim of N >= 1 owners).
 * The claim runner takes every owner's queue in one order (claimRunner.ts, queueKeys); the core locks the owner rows in owner-id order, arbitrates each owner with its own rules
 * in the agent's class, and decides the group with the pure groupDecision.ts. Accepted, each
 * member goes through runClaim like a single claim (preemptions, audit row, webhook event);
 * refused, the answer names each refusing owner and offers alternatives that suit them all.
 */

export type GroupBookingInput = GroupTargetInput & { start: Date; end: Date; attendees?: { email: string; name?: string }[]; title?: string; description?: string; video?: VideoSetting | null };

/** POST /v1/bookings with owner_emails: one booking per owner, all or none. */
export function groupBookingClaim(actor: AgentActor, input: GroupBookingInput, now: Date, idempotencyKey: string | null): ClaimOperation<BookingView> {
  assertBookingSpan(input.start, input.end);
  const emails = groupOwnerEmails(actor, input.ownerEmails);
  const normalized = { ...input, ownerEmails: emails };
  return {
    ...groupRunnerFields(actor, emails),
    slot: slotKey(input.start, input.end),
    refuseWithoutLock: (db) => refuseGroupWithoutLock(db, actor, normalized, input, 'booking.create', 'booking', idempotencyKey),
    run: async (tx) => {
      const made = await claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now);
      if (made?.groupId && !made.holdId) return { ok: true, value: await groupBookingView(tx, actor, made.id, now) };
      const targets = await loadTargets(tx, actor.customerId, normalized, true);
      const arounds = await Promise.all(targets.map((t) => loadAround(tx, t.owner.id, input.start, input.end, now)));
      const plans = targets.map((target, i) => ({ target, policy: requestPolicy(actor, target), around: arounds[i] }));
      const groupId = newId(now.getTime());
      const refused = await decideMembers(tx, actor, 'booking.create', groupId, plans, input, idempotencyKey, now);
      if (refused) return { ok: false, error: refused };
      const claimsByOwner = new Map(
        plans.map((p) => [p.target.owner.id, { ...newBooking({ actor, ownerId: p.target.owner.id, calendarId: p.target.calendar.id, meetingClassId: p.target.meetingClass.id, start: input.start, end: input.end, now, idempotencyKey }, input), groupId }]),
      );
      // The organizer is the first owner named (docs/calendars.md "Video links").
      return applyBookings(tx, plans, claimsByOwner, 'booking.create', now, targets, undefined, {}, input.video ? { setting: input.video, organizer: targets[0] } : null);
    },
  };
}

/**
 * What an owner-decided group adds to each member's runClaim (an approval of a collective
 * public proposal): the owner as actor, the proposal's facts, the words preemptions carry.
 */
export type MemberDecisionExtras = { actor?: AuditActor; auditDetails?: Record<string, unknown>; preemptionReason?: string };
/** The agent's video for a group booking and the organizer (first owner named) whose calendar makes a Meet or Teams link (docs/calendars.md "Video links"). */
export type GroupVideo = { setting: VideoSetting; organizer: SchedulingTarget };

/** Run every accepted member through runClaim (owner-id order) and answer the first named member with the group. */
export async function applyBookings(
  tx: Tx,
  plans: MemberPlan[],
  claimsByOwner: Map<string, NewClaim>,
  action: AuditAction,
  now: Date,
  named: SchedulingTarget[],
  releaseParts?: ReadonlySet<string>,
  extras: MemberDecisionExtras = {},
  video?: GroupVideo | null,
): Promise<Answer<BookingView>> {
  const soFar = new Set<string>();
  const lead = video && { claimId: claimsByOwner.get(video.organizer.owner.id)!.id, ownerId: video.organizer.owner.id, calendarId: video.organizer.calendar.id };
  const views: BookingView[] = [];
  const members: GroupMemberView[] = [];
  for (const p of inOwnerOrder(plans)) {
    const claim = claimsByOwner.get(p.target.owner.id)!;
    const r = await runClaim(tx, { action, target: p.target, policy: p.policy, claim, now, around: p.around, preemptedSoFar: soFar, releaseHoldParts: claim.holdId ? releaseParts?.has(claim.holdId) : undefined, ...extras, video: video && lead ? memberVideoRequest(video.setting, lead, p.target.owner.id) : null });
    if (!r.ok) throw r.error;
    const i = named.indexOf(p.target);
    members[i] = { owner_email: p.target.owner.email, booking_id: r.row.id, status: 'confirmed' };
    views[i] = bookingView(r.row, {
      ownerEmail: p.target.owner.email,
      timeZone: p.target.owner.timeZone,
      meetingClass: p.target.meetingClass.name,
      calendarType: p.target.calendar.type,
      preemptedIds: r.preemptedIds,
      preemptedClaims: r.preemptedClaims,
      warnings: r.warnings,
      members,
      video: r.video,
    });
  }
  return { ok: true, value: views[0] };
}

/** A group member's booking read back with the group (its members). */
export const groupBookingView = (db: Executor, actor: AgentActor, bookingId: string, now: Date): Promise<BookingView> => getBooking(db, actor, bookingId, now);
