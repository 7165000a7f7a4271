import { videoLinkOf } from '../calendars/videoLinks';
import type { Db, Tx } from '@/db/client';
import { withSpan } from '@/server/observability/tracing';
import { assertOwnerInScope, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { claimMadeWithKey, type NewClaim } from './claimStore';
import { loadAround, loadConfirmAround, requestPolicy, rulesWarnings, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { lockHoldsForConfirm, type LockedHold } from '@/db/hot/holds';
import { runClaim } from './claimDecision';
import { runClaimOperation, type Answer, type ClaimOperation } from './claimRunner';
import { assertActive, memberTarget, type ConfirmInput } from './holdTarget';
import { holdDecisionStands } from './standingDecision';
import { recordConfirm } from '@/server/observability/metrics';
import { bookingView, holdStatus, type BookingView } from './views';
import { newBooking, preemptedBy } from './bookingService';
import { applyBookings, groupBookingView } from './groupService';
import { decideMembers, type MemberPlan } from './groupVerdict';
import { approvalForHold } from '../approvals/policyService';
import { requestApprovalOnHold, type PendingApprovalView } from './heldRequest';

/** A hold's confirm: the slot, the class and the booking's details. */
type Confirmed = BookingView | PendingApprovalView;

/**
 * POST /v1/bookings/{id}/confirm: promote a hold of N >= 1 members to bookings, all or none.
 * `id` names a single hold (its id) or a group hold (a member's id, or the group_id). One
 * operation: its first pipeline locks the owners of every member the id names (owner-id
 * order), then the holds; then a single hold (N = 1) is confirmed, or may wait for its owner's
 * approval, and a group hold's members are decided together (groupVerdict.ts decideMembers).
 * Candidate holds need their exact slot; window holds a slot of their duration inside the
 * held window. Arbitration runs again (with the hold itself set aside) when anything the
 * hold's decision was taken on has changed since; otherwise the decision stands
 * (standingDecision.ts; a single hold only).
 */
export function confirmClaim(actor: AgentActor, id: string, input: ConfirmInput, now: Date, idempotencyKey: string | null): ClaimOperation<Confirmed> {
  return { queueKey: `hold:${id}`, action: 'hold.confirm', run: (tx) => confirmInTransaction(tx, actor, id, input, now, idempotencyKey) };
}

export function confirmHold(db: Db, actor: AgentActor, id: string, input: ConfirmInput, now: Date, idempotencyKey: string | null): Promise<Confirmed> {
  return runClaimOperation(db, confirmClaim(actor, id, input, now, idempotencyKey));
}

async function confirmInTransaction(tx: Tx, actor: AgentActor, id: string, input: ConfirmInput, now: Date, idempotencyKey: string | null): Promise<Answer<Confirmed>> {
  // One pipeline behind BEGIN: the owners locked, then the holds locked with their calendars and
  // classes, then (under those locks) the named hold owner's due holds expired and the claims
  // and provider busy time around the slot, the reads a single hold's runClaim would otherwise
  // send next, and its owner's approval rules (docs/api.md "Approval policies").
  const valid = isUuid(id);
  const locking = valid ? withSpan('claim.lock_wait', { 'customer.id': actor.customerId }, () => lockHoldsForConfirm(tx, id, actor.customerId, input.meetingClass)) : undefined;
  const around = valid && input.end > input.start ? loadConfirmAround(tx, { customerId: actor.customerId, holdId: id }, input.start, input.end, now) : undefined;
  around?.catch(() => {}); // handled here; awaited by confirmSingle or below
  const approval = valid ? approvalForHold(tx, { customerId: actor.customerId, holdId: id, agentId: actor.agentId, meetingClass: input.meetingClass }) : undefined;
  approval?.catch(() => {});
  try {
    const members = (await locking) ?? [];
    if (!members.length) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
    for (const m of members) assertOwnerInScope(actor, m.owner.email);
    const [first] = members;
    const single = members.length === 1 && !(first.hold.groupId && !first.hold.partOfHoldId);
    return single ? await confirmSingle(tx, actor, first, input, now, idempotencyKey, around!, approval!) : await confirmGroup(tx, actor, id, members, input, now, idempotencyKey);
  } finally {
    // Whatever the answer, the reads (and the expiry's notifications) finish inside the transaction.
    await Promise.all([around?.catch(() => {}), approval?.catch(() => {})]);
  }
}

/** The booking a member's hold becomes; a series' hold becomes an occurrence of the series (docs/arbitration.md "Recurring series"). */
const memberBooking = (actor: AgentActor, { target, hold }: { target: SchedulingTarget; hold: ClaimRow }, input: ConfirmInput, now: Date, idempotencyKey: string | null): NewClaim => ({
  ...newBooking({ actor, ownerId: target.owner.id, calendarId: target.calendar.id, meetingClassId: target.meetingClass.id, start: input.start, end: input.end, now, idempotencyKey, holdId: hold.id }, input),
  seriesId: hold.seriesId,
});

async function confirmSingle(
  tx: Tx,
  actor: AgentActor,
  locked: LockedHold,
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
  around: Promise<{ around: LoadedClaim[]; read: boolean }> | undefined,
  approval: Promise<{ required: boolean; proposalId: string | null }>,
): Promise<Answer<Confirmed>> {
  const { owner, hold: row, calendar } = locked;
  const status = holdStatus(row, now);
  if (status === 'promoted') {
    const made = await claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now);
    if (made && made.id === row.promotedBookingId) {
      const view = { ownerEmail: owner.email, timeZone: owner.timeZone, meetingClass: locked.holdClassName, calendarType: calendar.type, preemptedIds: await preemptedBy(tx, made.id), warnings: rulesWarnings(owner), video: await videoLinkOf(tx, made.id) };
      return { ok: true, value: bookingView(made, view) };
    }
    throw new DomainError('HOLD_ALREADY_PROMOTED', 'This hold was already confirmed into a booking', { extra: { booking_id: row.promotedBookingId } });
  }
  assertActive(status, 'The hold');
  const { target, parts } = await memberTarget(tx, actor, locked, input);
  // An owner's approval policy covers it (or the hold already waits for the owner): the hold waits instead of becoming a booking.
  const held = await approval;
  if (held.required || held.proposalId) return { ok: true, value: await requestApprovalOnHold(tx, { actor, target, hold: row, input, now, idempotencyKey, filed: held.proposalId }) };
  const claim = memberBooking(actor, { target, hold: row }, input, now, idempotencyKey);
  // The hold's decision stands when nothing it was taken on has changed since (the versions
  // came with the locks above; docs/arbitration.md "Confirm: when the hold's decision stands"):
  // promoted as decided. Otherwise arbitration re-runs on the claims around (due holds expired)
  // with the hold set aside. The reads around are awaited either way: they fail closed on a
  // provider calendar that cannot be trusted (docs/calendars.md).
  const decisionStands = holdDecisionStands(row, { owner, meetingClass: target.meetingClass, agentId: actor.agentId, start: input.start, end: input.end, now });
  recordConfirm(decisionStands);
  const loaded = await around;
  // Not read when the versions matched: a confirm arbitrating after all reads them now (one more round trip, never on the standing path).
  const claimsAround = decisionStands || loaded?.read ? loaded?.around : await loadAround(tx, owner.id, input.start, input.end, now);
  const r = await runClaim(tx, { action: 'booking.confirm', target, policy: requestPolicy(actor, target), claim, now, around: claimsAround, releaseHoldParts: parts.length > 0, decisionStands, video: input.video });
  if (!r.ok) return r;
  const view = { ownerEmail: owner.email, timeZone: owner.timeZone, meetingClass: target.meetingClass.name, calendarType: calendar.type, preemptedIds: r.preemptedIds, preemptedClaims: r.preemptedClaims, warnings: r.warnings, video: r.video };
  return { ok: true, value: bookingView(r.row, view) };
}

/**
 * A group hold's confirm: every member hold promoted to a booking (sharing the group's id), all
 * or none. It cannot wait for approval: refused with APPROVAL_REQUIRED when a rule of one
 * member's owner covers this agent and class. With `video`, the organizer whose calendar makes a
 * Meet or Teams link is the owner of the member hold the id names (the group hold's `hold_id`:
 * the first owner named), with the group_id the group's first member (docs/calendars.md "Video links").
 */
async function confirmGroup(tx: Tx, actor: AgentActor, id: string, locked: LockedHold[], input: ConfirmInput, now: Date, idempotencyKey: string | null): Promise<Answer<BookingView>> {
  const groupId = locked[0].hold.groupId!;
  for (const l of locked) {
    const { required } = await approvalForHold(tx, { customerId: actor.customerId, holdId: l.hold.id, agentId: actor.agentId, meetingClass: input.meetingClass });
    const email = l.owner.email;
    if (required) throw new DomainError('APPROVAL_REQUIRED', `${email} requires approval for this booking, and a group booking cannot wait for it: book ${email} alone`);
  }
  const statuses = locked.map((l) => holdStatus(l.hold, now));
  if (statuses.every((s) => s === 'promoted')) {
    const made = await claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now);
    if (made && made.groupId === groupId) return { ok: true, value: await groupBookingView(tx, actor, made.id, now) };
    throw new DomainError('HOLD_ALREADY_PROMOTED', 'This group hold was already confirmed into bookings', { extra: { booking_id: locked[0].hold.promotedBookingId } });
  }
  for (const s of statuses) {
    if (s === 'promoted') throw new DomainError('HOLD_ALREADY_PROMOTED', 'A member of this group hold was already confirmed');
    assertActive(s, 'The group hold');
  }
  const plans: MemberPlan[] = [];
  const claimsByOwner = new Map<string, NewClaim>();
  const withParts = new Set<string>();
  for (const l of locked) {
    const { target, parts } = await memberTarget(tx, actor, l, input);
    if (parts.length) withParts.add(l.hold.id);
    const around = await loadAround(tx, l.owner.id, input.start, input.end, now);
    plans.push({ target, policy: requestPolicy(actor, target), around, excludeClaimIds: [l.hold.id] });
    claimsByOwner.set(l.owner.id, { ...memberBooking(actor, { target, hold: l.hold }, input, now, idempotencyKey), groupId });
  }
  const refused = await decideMembers(tx, actor, 'booking.confirm', groupId, plans, input, idempotencyKey, now);
  if (refused) return { ok: false, error: refused };
  const named = plans.map((p) => p.target);
  const organizer = named[Math.max(0, locked.findIndex((l) => l.hold.id === id))];
  return applyBookings(tx, plans, claimsByOwner, 'booking.confirm', now, named, withParts, {}, input.video ? { setting: input.video, organizer } : null);
}
