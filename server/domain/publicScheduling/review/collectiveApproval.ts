import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { bookingProposals, publicMeetingTypes } from '@/db/schema';
import type { OwnerActor } from '../../adminAudit';
import type { AuditActor } from '../../audit';
import {
  applyBookings,
  decideMembers,
  loadAround,
  loadTargets,
  ownerQueueKey,
  runClaimOperation,
  type Answer,
  type ClaimOperation,
  type MemberPlan,
  type NewClaim,
} from '../../claims';
import { hostBookedMessage, sendMail, type MailMessage } from '../../email';
import { newId } from '../../ids';
import type { RequestPolicy } from '../../scheduling';
import { checkAllocation } from '../admin';
import { approvalDecision, approvalTitle, preemptionReason, requireConfirmedPreemption } from './approvalRules';
import { findOwnProposal } from './owner';
import { proposalFacts } from './proposalAudit';
import {
  approvalClass,
  approvalPolicy,
  attendeesOf,
  chooseSlot,
  gateRefusalAnswered,
  mailFor,
  notifyAgent,
  notPending,
  requesterAudiences,
  type ApproveInput,
  type ReviewResult,
} from './reviewDecision';

/**
 * Approving a collective public proposal (docs/public-scheduling.md "Several hosts"): any host
 * decides for all. Every host is booked in one group booking through the group claim path
 * (claims/groupService.ts: the hosts' queues in one order, their rows locked in owner-id order,
 * each host arbitrated with its own rules, `decideMembers` deciding all-or-nothing, every member
 * through runClaim), with the proposal marked booked in the same transaction. A refusal names
 * each refusing host and leaves the proposal pending. After commit the requester gets the usual
 * acceptance mail and every other host a note that the meeting is on their calendar.
 */
export async function approveCollective(db: Db, reviewer: OwnerActor, input: ApproveInput, hosts: { customerId: string; emails: string[] }, now: Date): Promise<ReviewResult> {
  const { customerId, emails } = hosts;
  const actor: AuditActor = { kind: 'owner', ownerId: reviewer.ownerId, email: reviewer.email };
  const run = async (tx: Tx): Promise<Answer<{ result: ReviewResult; mails: MailMessage[] }>> => {
    const p = await findOwnProposal(tx, reviewer, input.proposalId);
    const meetingClass = await approvalClass(tx, reviewer, p, input.meetingClass);
    const targets = await loadTargets(tx, customerId, { ownerEmails: emails, meetingClass: meetingClass.name }, true);
    const locked = await findOwnProposal(tx, reviewer, input.proposalId, true);
    if (locked.status !== 'pending_review') throw notPending(locked);
    const slot = chooseSlot(locked, input);
    const [type] = locked.meetingTypeId ? await tx.select().from(publicMeetingTypes).where(eq(publicMeetingTypes.id, locked.meetingTypeId)) : [];
    const lead = targets[0].owner;
    if (type) {
      await checkAllocation(tx, { meetingTypeId: type.id, audienceIds: await requesterAudiences(tx, type.id, locked), ownerTimeZone: lead.timeZone, at: slot.start, now });
    }
    const base = approvalPolicy(meetingClass, type);
    const policy: RequestPolicy = input.noPreemption ? { ...base, preemptPolicy: 'never', agentCanPreempt: false } : base;
    const title = approvalTitle(locked, type?.title, meetingClass.name);
    const arounds = await Promise.all(targets.map((t) => loadAround(tx, t.owner.id, slot.start, slot.end, now)));
    // No meeting of any host is moved aside unless the reviewing host confirmed exactly it.
    const displaced = targets.flatMap((t, i) => approvalDecision(t.owner, policy, slot, arounds[i], now).ids);
    await requireConfirmedPreemption(tx, displaced, input.confirmPreemption);
    const plans: MemberPlan[] = targets.map((target, i) => ({ target, policy, around: arounds[i] }));
    const groupId = newId(now.getTime());
    const refused = await decideMembers(tx, { customerId, agentId: null, actor }, 'proposal.review', groupId, plans, slot, null, now);
    if (refused) return { ok: false, error: refused };
    const attendees = attendeesOf(locked);
    const claims = new Map<string, NewClaim>(
      targets.map((t) => [
        t.owner.id,
        {
          id: newId(now.getTime()),
          customerId,
          ownerId: t.owner.id,
          calendarId: t.calendar.id,
          agentId: locked.agentId,
          meetingClassId: meetingClass.id,
          kind: 'booking',
          status: 'confirmed',
          startAt: slot.start,
          endAt: slot.end,
          source: 'public',
          title,
          description: locked.message,
          attendees,
          externalAccepted: attendees.some((a) => a.external && a.response === 'accepted'),
          proposalId: locked.id,
          groupId,
          createdAt: now,
          updatedAt: now,
        } satisfies NewClaim,
      ]),
    );
    const reviewerName = targets.find((t) => t.owner.id === reviewer.ownerId)?.owner.name ?? null;
    // The type's video link, on every host's booking: a Meet or Teams link made once, by the lead host's calendar (docs/calendars.md "Video links").
    const video = type?.videoProvider ? { setting: { provider: type.videoProvider, url: type.videoUrl }, organizer: targets[0] } : null;
    const extras = { actor, auditDetails: { ...proposalFacts(locked), group_id: groupId }, preemptionReason: preemptionReason(title, meetingClass.name, reviewerName) };
    const applied = await applyBookings(tx, plans, claims, 'proposal.review', now, targets, undefined, extras, video);
    if (!applied.ok) return applied;
    const bookingId = claims.get(lead.id)!.id;
    await tx.update(bookingProposals).set({ status: 'booked', bookingId, updatedAt: now }).where(eq(bookingProposals.id, locked.id));
    await notifyAgent(tx, locked, { status: 'booked', booking_id: bookingId, owner_email: lead.email, start: slot.start.toISOString(), end: slot.end.toISOString() }, now, reviewer);
    const preempted = applied.value.preempted_booking_ids ?? [];
    const result: ReviewResult = { proposal_id: locked.id, status: 'booked', booking_id: bookingId, start: slot.start.toISOString(), end: slot.end.toISOString(), preempted_booking_ids: preempted };
    if (applied.value.warnings?.length) result.warnings = applied.value.warnings;
    const requesterMail = await mailFor(tx, locked, { status: 'booked', start: slot.start, end: slot.end });
    // The note to every other host: who approved, for whom, when (in that host's zone).
    const requester = locked.requesterName ?? locked.requesterEmail ?? 'A requester';
    const approver = reviewerName ?? reviewer.email;
    const notes = targets
      .filter((t) => t.owner.id !== reviewer.ownerId)
      .map((t) => hostBookedMessage(t.owner.email, { title: type?.title ?? title, ownerName: null, start: slot.start, end: slot.end, timeZone: t.owner.timeZone, requester, approver }));
    return { ok: true, value: { result, mails: requesterMail ? [requesterMail, ...notes] : notes } };
  };
  const operation: ClaimOperation<{ result: ReviewResult; mails: MailMessage[] }> = {
    queueKey: ownerQueueKey(customerId, emails[0]),
    queueKeys: emails.map((e) => ownerQueueKey(customerId, e)),
    gateOwners: emails.map((email) => ({ customerId, email })),
    action: 'proposal.approve',
    run,
  };
  const out = await runClaimOperation(db, operation, { owner: { customerId, email: emails[0] }, now }).catch(gateRefusalAnswered);
  for (const mail of out.mails) await sendMail(mail);
  return out.result;
}
