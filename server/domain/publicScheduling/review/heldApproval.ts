import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { bookingProposals, calendars, claims, meetingClasses } from '@/db/schema';
import type { OwnerActor } from '../../adminAudit';
import type { CalendarGate } from '../../calendars/mirror';
import { holdStatus, loadAround, lockOwner, ownerQueueKey, resolveCalendar, runClaim, runClaimOperation, type Answer, type ClaimRow } from '../../claims';
import { DomainError } from '../../errors';
import { enqueueNotification } from '../../notificationService';
import { approvalDecision, approvalTitle, approvedClaim, requireConfirmedPreemption, reviewRequest } from './approvalRules';
import { findOwnProposal } from './owner';
import { heldSpan } from './heldDecline';
import { proposalFacts } from './proposalAudit';
import { approvalPolicy, attendeesOf, gateRefusalAnswered, invalid, mailFor, notPending, type ApproveInput, type ReviewResult } from './reviewDecision';
import { sendMail, type MailMessage } from '../../email';

/**
 * The owner approves an agent's booking that their approval policy held (docs/api.md "Approval
 * policies"). The hold is promoted to the booking through the one claim path: on the owner's
 * queue, behind the owner's calendar gate, with the owner locked, arbitration runs again on the
 * claims and provider busy time around (the hold set aside), so whatever changed since the agent
 * asked (a new meeting, the owner's rules, a provider event) is judged now; a refusal is answered
 * with its reason (`message` saying the calendar changed) and the request stays pending with its
 * hold. Accepted: the hold is promoted, the booking inserted with the request's title,
 * description, attendees and video link, the request marked booked, and the agent told booking.approved
 * (notification and webhook), all in one transaction; the audit row (proposal.review) names the
 * approving owner as actor. A requester's confirmed waitlist offer (docs/public-scheduling.md
 * "Waitlist", a public proposal on the offered hold) is approved the same way; the requester is
 * mailed the outcome as for any public request.
 */
export async function approveHeld(db: Db, reviewer: OwnerActor, input: ApproveInput, named: { customerId: string; email: string }, now: Date): Promise<ReviewResult> {
  const approval = async (tx: Tx, gate?: CalendarGate): Promise<Answer<{ result: ReviewResult; mail: MailMessage | null }>> => {
    const owner = await lockOwner(tx, reviewer.ownerId);
    const p = await findOwnProposal(tx, reviewer, input.proposalId, true);
    if (p.status !== 'pending_review') throw notPending(p);
    const [hold]: (ClaimRow | undefined)[] = await tx.select().from(claims).where(eq(claims.id, p.holdId!)).for('update');
    if (!hold) throw new DomainError('HOLD_NOT_FOUND', 'The hold on this request is gone; decline the request');
    const slot = { start: hold.startAt, end: hold.endAt };
    // The agent asked for this time: an approval books exactly it.
    if ((input.start && input.start.getTime() !== slot.start.getTime()) || (input.end && input.end.getTime() !== slot.end.getTime())) {
      throw invalid('start', "an agent's held booking is approved at the time it holds");
    }
    const status = holdStatus(hold, now);
    if (status === 'expired') throw new DomainError('HOLD_EXPIRED', 'The hold on this time expired (the meeting was due to start); decline the request');
    if (status !== 'active') throw new DomainError('HOLD_NOT_ACTIVE', status === 'preempted' ? 'A higher-priority meeting took this time since the agent asked; decline the request' : 'The agent released the hold on this time; decline the request');
    const [meetingClass] = await tx.select().from(meetingClasses).where(eq(meetingClasses.id, p.meetingClassId!));
    const [held] = hold.calendarId ? await tx.select({ type: calendars.type }).from(calendars).where(eq(calendars.id, hold.calendarId)) : [];
    const calendar = await resolveCalendar(tx, owner, held?.type);
    const target = { owner, calendar, meetingClass };
    const policy = approvalPolicy(meetingClass, undefined);
    const title = approvalTitle(p, null, meetingClass.name);
    // The claims around (read with the calendar gate), the hold itself set aside: nothing moved aside unless the owner confirmed it.
    const around = await loadAround(tx, owner.id, slot.start, slot.end, now, undefined, gate);
    const others = around.filter((c) => c.id !== hold.id);
    await requireConfirmedPreemption(tx, approvalDecision(owner, policy, slot, others, now).ids, input.confirmPreemption);
    const attendees = attendeesOf(p);
    const claim = approvedClaim(p, { ownerId: owner.id, calendarId: calendar.id, meetingClassId: meetingClass.id, slot, title, attendees }, now, { holdId: hold.id, source: p.origin === 'public' ? 'public' : 'agent' });
    const outcome = await runClaim(tx, {
      ...reviewRequest({ target, policy, around, title, reviewer, auditDetails: { ...proposalFacts(p), approval: 'held', hold_id: hold.id }, now, claim }),
      announce: false,
      // The video link the agent asked for, made as a direct booking's (docs/calendars.md "Video links").
      video: p.video,
    });
    if (!outcome.ok) {
      const e = outcome.error;
      const error = new DomainError(e.code, `The calendar changed since the agent asked: ${e.message}`, { reason: e.reason, fields: e.fields, details: e.details, extra: e.extra });
      return { ok: false, error };
    }
    await tx.update(bookingProposals).set({ status: 'booked', bookingId: outcome.row.id, updatedAt: now }).where(eq(bookingProposals.id, p.id));
    if (p.agentId) {
      const data = { ...heldSpan(p, hold, owner.email, meetingClass.name, owner.timeZone), booking_id: outcome.row.id, approved_by: { email: reviewer.email } };
      await enqueueNotification(tx, { customerId: p.customerId, agentId: p.agentId, kind: 'booking.approved', data, now, actor: { kind: 'owner', email: reviewer.email } });
    }
    const result: ReviewResult = { proposal_id: p.id, status: 'booked', booking_id: outcome.row.id, start: slot.start.toISOString(), end: slot.end.toISOString(), preempted_booking_ids: outcome.preemptedIds };
    if (outcome.warnings.length) result.warnings = outcome.warnings;
    return { ok: true, value: { result, mail: await mailFor(tx, p, { status: 'booked', start: slot.start, end: slot.end }) } };
  };
  const op = { queueKey: ownerQueueKey(named.customerId, named.email), action: 'proposal.approve', gatesCalendars: true, run: approval };
  const out = await runClaimOperation(db, op, { owner: named, now }).catch(gateRefusalAnswered);
  if (out.mail) await sendMail(out.mail);
  return out.result;
}
