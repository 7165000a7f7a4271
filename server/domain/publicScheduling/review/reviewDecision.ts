import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { allocations, bookingProposals, claims as claimsTable, meetingClasses, owners, publicMeetingTypes, requesterIdentities, type AttendeeJson } from '@/db/schema';
import { normalizeEmail } from '../../access';
import type { OwnerActor } from '../../adminAudit';
import type { CalendarGate } from '../../calendars/mirror';
import {
  bookingOwner,
  GateRefusal,
  loadAround,
  lockOwner,
  ownerQueueKey,
  rescheduleClaim,
  resolveCalendar,
  runClaim,
  runClaimOperation,
  type Answer,
  type ClaimOperation,
  type ClaimRequest,
  type ClaimResult,
  type ClaimRow,
  type Mover,
} from '../../claims';
import { mailLocale } from '@/i18n/mail';
import { moveOutcomeMessage, proposalOutcomeMessage, sendMail, type MailMessage } from '../../email';
import { DomainError, invalidField } from '../../errors';
import { isUuid } from '../../ids';
import { getMeetingClass, type MeetingClassRow } from '../../meetingClassService';
import { enqueueNotification } from '../../notificationService';
import { bufferMs, type RequestPolicy } from '../../scheduling';
import { audienceMembership, checkAllocation, effectivePreemptPolicy } from '../admin';
import { recordVideoLink, videoMailLine } from '../../calendars/videoLinks';
import { findOwnProposal, inInbox, proposalNotFound, type ProposalRow, type Reviewer } from './owner';
import { recordAssignment, type PoolAssignmentView } from '../../pools/poolScheduling';
import { approvalDecision, approvalTitle, approvedClaim, requireConfirmedPreemption, reviewRequest } from './approvalRules';
import { proposalFacts, writeProposalAudit } from './proposalAudit';
import { releaseDeclinedHold } from './heldDecline';
import { bookWeeklySeries } from './seriesApproval';
import type { NewClaim } from '@/db/hot/claims';

export type TypeRow = typeof publicMeetingTypes.$inferSelect;

/**
 * `confirmPreemption`: the ids of the meetings the owner agreed to move aside (docs/dashboard.md "Review").
 * `noPreemption`: nothing may give way (a type's "book instantly", docs/public-scheduling.md "Booking instantly").
 */
export type ApproveInput = { proposalId: string; start?: Date; end?: Date; meetingClass?: string; confirmPreemption?: string[]; noPreemption?: boolean };
export type ReviewResult = {
  proposal_id: string;
  status: 'booked' | 'declined';
  booking_id: string | null;
  start: string | null;
  end: string | null;
  preempted_booking_ids: string[];
  warnings?: string[];
};

export function invalid(path: string, message: string): DomainError {
  return invalidField(path, message, `${path}: ${message}`);
}

export function notPending(p: ProposalRow): DomainError {
  return new DomainError('PROPOSAL_NOT_PENDING', `The proposal is ${p.status}; only proposals pending review can be decided`);
}

/** The time to book: the one given, else the requested window, else the first candidate. */
export function chooseSlot(p: ProposalRow, input: ApproveInput): { start: Date; end: Date } {
  let slot: { start: Date; end: Date } | null = null;
  if (input.start || input.end) {
    if (!input.start || !input.end) throw invalid('start', 'give both start and end, or neither');
    slot = { start: input.start, end: input.end };
  } else if (p.origin === 'public' && p.requestedStart && p.requestedEnd) slot = { start: p.requestedStart, end: p.requestedEnd };
  else if (p.candidates[0]) slot = { start: new Date(p.candidates[0].start), end: new Date(p.candidates[0].end) };
  if (!slot) throw invalid('start', 'this proposal names no time: choose start and end');
  const minutes = (slot.end.getTime() - slot.start.getTime()) / 60_000;
  if (!(minutes >= 5 && minutes <= 480)) throw invalid('end', 'a booking spans 5 to 480 minutes (end after start)');
  return slot;
}

/**
 * What an approval runs arbitration with: the class's priority and, for a
 * public type, its effective preempt policy; the owner acts with authority,
 * so lower-priority claims give way exactly when the policy is preempt_lower.
 * Buffers: the public type's, else the class's (docs/arbitration.md "Buffers").
 * Reminders likewise: the type's list when it has one, else the class's.
 */
export function approvalPolicy(meetingClass: MeetingClassRow, type: TypeRow | undefined): RequestPolicy {
  const preemptPolicy = type ? effectivePreemptPolicy(type, meetingClass) : meetingClass.preemptPolicy;
  const buffers = type ?? meetingClass;
  // Reminders: the type's own list, else the class's (docs/reliability.md "Reminders").
  const reminderOffsetsMinutes = type?.reminderOffsetsMinutes ?? meetingClass.reminderOffsetsMinutes;
  return { priority: meetingClass.priority, preemptPolicy, agentCanPreempt: preemptPolicy === 'preempt_lower', ...bufferMs(buffers.bufferBeforeMinutes, buffers.bufferAfterMinutes), reminderOffsetsMinutes };
}

/** The class an approval books with: the one chosen, else the proposal's; a free-text proposal has none of its own. */
export async function approvalClass(db: Executor, reviewer: Reviewer, p: ProposalRow, chosen: string | undefined): Promise<MeetingClassRow> {
  const meetingClass = chosen ? await getMeetingClass(db, reviewer.customerId, chosen) : p.meetingClassId ? await classById(db, p.meetingClassId) : null;
  if (!meetingClass) throw invalid('meeting_class', 'a free-text proposal needs a meeting class to book with');
  return meetingClass;
}

/** How far ahead approvalTimes looks when the proposal names no window of its own. */
async function classById(db: Executor, id: string): Promise<MeetingClassRow> {
  const [row] = await db.select().from(meetingClasses).where(eq(meetingClasses.id, id));
  return row;
}

/** Allocations of this type that name an audience the requester belongs to (checkAllocation weighs those too). */
export async function requesterAudiences(db: Executor, typeId: string, p: ProposalRow): Promise<string[]> {
  // The credential's identity when one was presented, else the verified contact email (as checkAllocation counts).
  const [identity] = p.requesterIdentityId ? await db.select({ email: requesterIdentities.email }).from(requesterIdentities).where(eq(requesterIdentities.id, p.requesterIdentityId)) : [];
  const email = identity?.email ?? p.requesterEmail;
  if (!email) return [];
  const rows = await db
    .selectDistinct({ audienceId: allocations.audienceId })
    .from(allocations)
    .where(and(eq(allocations.meetingTypeId, typeId), isNotNull(allocations.audienceId)));
  const out: string[] = [];
  for (const r of rows) if (r.audienceId && (await audienceMembership(db, r.audienceId, { email }))) out.push(r.audienceId);
  return out;
}

export function attendeesOf(p: ProposalRow): AttendeeJson[] {
  const out: AttendeeJson[] = [];
  const seen = new Set<string>();
  // A public requester asked for this very time: they count as an external attendee who accepted.
  if (p.origin === 'public' && p.requesterEmail) {
    out.push({ email: p.requesterEmail, name: p.requesterName, response: 'accepted', external: true });
    seen.add(p.requesterEmail);
  }
  for (const a of p.attendees) {
    const email = normalizeEmail(a.email);
    if (seen.has(email)) continue;
    seen.add(email);
    out.push({ email, name: a.name ?? null, response: 'needs_action' });
  }
  return out;
}

/** The requester's mail about the decision, in the zone their booking pages used (else the owner's) and the language of their request. */
export async function mailFor(
  db: Executor,
  p: ProposalRow,
  outcome: { status: 'booked' | 'declined'; reason?: string | null; start?: Date; end?: Date; weeks?: { start: Date; end: Date }[] },
  moved?: { from: { start: Date; end: Date } },
): Promise<MailMessage | null> {
  if (p.origin !== 'public' || !p.requesterEmail) return null;
  const [owner] = await db.select({ name: owners.name, timeZone: owners.timeZone }).from(owners).where(eq(owners.id, p.ownerId));
  const [type] = p.meetingTypeId ? await db.select({ title: publicMeetingTypes.title, location: publicMeetingTypes.location, videoProvider: publicMeetingTypes.videoProvider, videoUrl: publicMeetingTypes.videoUrl }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  if (moved) {
    const timeZone = p.requesterTimeZone ?? owner?.timeZone ?? 'UTC';
    return moveOutcomeMessage(
      p.requesterEmail,
      { title: type?.title ?? null, ownerName: owner?.name ?? null, start: outcome.start ?? p.requestedStart, end: outcome.end ?? p.requestedEnd, timeZone },
      { ...outcome, from: moved.from },
      mailLocale(p.requesterLocale),
    );
  }
  return proposalOutcomeMessage(
    p.requesterEmail,
    { title: type?.title ?? null, ownerName: owner?.name ?? null, start: outcome.start ?? p.requestedStart, end: outcome.end ?? p.requestedEnd, timeZone: p.requesterTimeZone ?? owner?.timeZone ?? 'UTC', weeks: outcome.weeks },
    { ...outcome, location: outcome.status === 'booked' ? (type?.location ?? null) : null, video: outcome.status === 'booked' && type ? videoMailLine(type) : null },
    mailLocale(p.requesterLocale),
  );
}

/** The proposal's agent hears the owner's decision (`reviewer`: who decided, the event's actor). */
export async function notifyAgent(db: Executor, p: ProposalRow, data: Record<string, unknown>, now: Date, reviewer: { email: string }): Promise<void> {
  if (p.origin !== 'agent' || !p.agentId) return;
  await enqueueNotification(db, { customerId: p.customerId, agentId: p.agentId, kind: 'proposal.reviewed', data: { proposal_id: p.id, ...data }, now, actor: { kind: 'owner', email: reviewer.email } });
}

/**
 * The owner of a proposal of this reviewer, named as the claim runner queues and gates it
 * (the owner's queue and calendar gate, as an agent's booking on them); PROPOSAL_NOT_FOUND
 * for anything else. Read before the queue, outside the decision's transaction.
 */
/** The proposal's owner, and what decides how it is approved: the booking it would move, a collective type's hosts (approve.ts). */
export async function proposalOwner(
  db: Executor,
  reviewer: Reviewer,
  proposalId: string,
): Promise<{ customerId: string; email: string; timeZone: string; movesBookingId: string | null; hostEmails: string[] | null; holdId: string | null }> {
  if (!isUuid(proposalId)) throw proposalNotFound();
  const [row] = await db
    .select({ email: owners.email, timeZone: owners.timeZone, movesBookingId: bookingProposals.movesBookingId, hostOwnerIds: bookingProposals.hostOwnerIds, holdId: bookingProposals.holdId })
    .from(bookingProposals)
    .innerJoin(owners, eq(owners.id, bookingProposals.ownerId))
    .where(and(eq(bookingProposals.id, proposalId.toLowerCase()), eq(bookingProposals.customerId, reviewer.customerId), inInbox(reviewer.ownerId)))
    .limit(1);
  if (!row) throw proposalNotFound();
  let hostEmails: string[] | null = null;
  if (row.hostOwnerIds?.length) {
    // A collective proposal: every host, in the type's order (an owner deleted since drops out).
    const found = await db.select({ id: owners.id, email: owners.email }).from(owners).where(inArray(owners.id, row.hostOwnerIds));
    const byId = new Map(found.map((o) => [o.id, o.email]));
    hostEmails = row.hostOwnerIds.flatMap((id) => byId.get(id) ?? []);
  }
  return { customerId: reviewer.customerId, email: row.email, timeZone: row.timeZone, movesBookingId: row.movesBookingId, hostEmails, holdId: row.holdId };
}

/** A refusal of the calendar gate answers as itself (a caller without an Idempotency-Key; claimRunner.ts). */
export function gateRefusalAnswered(err: unknown): never {
  throw err instanceof GateRefusal ? err.refusal : err;
}

/**
 * The owner approves: arbitration runs as for any booking (action
 * proposal.review) with the proposal's class and, for a public type, its
 * effective preempt policy; the owner acts with authority, so lower-priority
 * claims give way exactly when that policy is preempt_lower. An allocation
 * that is full refuses first (booking_limit_exceeded). Accepted: the booking
 * (source public for public proposals) and the proposal (booked) commit
 * together. Rejected: the audited arbitration error is thrown and the
 * proposal stays pending_review. It runs through the claim runner as an agent's booking
 * does: on the owner's queue, behind the owner's calendar gate (a stale provider mirror is
 * synced first; one that cannot be trusted refuses with the same 409/503). The audit rows (the
 * decision, each preemption) name the reviewing owner as actor, not the proposal's agent.
 */
export async function approveSingle(db: Db, reviewer: OwnerActor, input: ApproveInput, named: { customerId: string; email: string }, now: Date): Promise<ReviewResult> {
  const approval = async (tx: Tx, gate?: CalendarGate): Promise<Answer<{ result: ReviewResult; mail: MailMessage | null }>> => {
    const owner = await lockOwner(tx, reviewer.ownerId);
    const p = await findOwnProposal(tx, reviewer, input.proposalId, true);
    if (p.status !== 'pending_review') throw notPending(p);
    const slot = chooseSlot(p, input);
    const meetingClass = await approvalClass(tx, reviewer, p, input.meetingClass);
    const [type]: (TypeRow | undefined)[] = p.meetingTypeId ? await tx.select().from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
    const calendar = await resolveCalendar(tx, owner, undefined);
    const audienceIds = type ? await requesterAudiences(tx, type.id, p) : [];
    const allocationCheck = async (at: Date) => {
      if (type) await checkAllocation(tx, { meetingTypeId: type.id, audienceIds, ownerTimeZone: owner.timeZone, at, now });
    };
    // A weekly request checks each meeting's allocation as it is claimed (bookWeeklySeries).
    if (!p.repeatWeeks) await allocationCheck(slot.start);
    const target = { owner, calendar, meetingClass };
    const attendees = attendeesOf(p);
    const policy: RequestPolicy = input.noPreemption ? { ...approvalPolicy(meetingClass, type), preemptPolicy: 'never', agentCanPreempt: false } : approvalPolicy(meetingClass, type);
    const title = approvalTitle(p, type?.title, meetingClass.name);
    const claimAt = (at: { start: Date; end: Date }): NewClaim =>
      approvedClaim(p, { ownerId: owner.id, calendarId: calendar.id, meetingClassId: meetingClass.id, slot: at, title, attendees }, now, {
        source: p.origin === 'public' ? 'public' : 'agent',
        externalAccepted: attendees.some((a) => a.external && a.response === 'accepted'),
      });
    const request = (claim: NewClaim, around: ClaimRequest['around']): ClaimRequest => reviewRequest({ target, policy, around, title, reviewer, auditDetails: proposalFacts(p), now, claim });
    let booked: Extract<ClaimResult, { ok: true }>[];
    if (p.repeatWeeks) {
      // "Repeat weekly" (docs/public-scheduling.md "Repeating weekly"): the series, all or nothing, on the same claim path.
      const series = await bookWeeklySeries(tx, { target, policy, first: slot, weeks: p.repeatWeeks, now, gate, confirmPreemption: input.confirmPreemption }, claimAt, request, (at) => allocationCheck(at.start));
      if (!series.ok) return series;
      booked = series.results;
    } else {
      // No meeting is moved aside unless the owner confirmed exactly it (a stale page is refused).
      // The claims around, read with the calendar gate (claimRunner.ts), as runClaim would read them.
      const around = await loadAround(tx, owner.id, slot.start, slot.end, now, undefined, gate);
      await requireConfirmedPreemption(tx, approvalDecision(owner, policy, slot, around, now).ids, input.confirmPreemption);
      const one = await runClaim(tx, request(claimAt(slot), around));
      if (!one.ok) return one;
      booked = [one];
    }
    const outcome = booked[0];
    await tx.update(bookingProposals).set({ status: 'booked', bookingId: outcome.row.id, updatedAt: now }).where(eq(bookingProposals.id, p.id));
    // The meeting type's video link (docs/calendars.md "Video links"): recorded with each booking; made by the calendar's sync.
    for (const b of booked) await recordVideoLink(tx, { claimId: b.row.id, ownerId: owner.id, calendarId: calendar.id, meetingTypeId: p.meetingTypeId }, now);
    // A pool type's host: the booking counts toward the pool's loads (docs/groups.md "Pools").
    const a = p.poolAssignment;
    if (a) await recordAssignment(tx, { claimId: outcome.row.id, customerId: p.customerId, poolId: a.pool_id, ownerId: owner.id, assignment: { ...a, reason: a.reason as PoolAssignmentView['reason'] }, now });
    await notifyAgent(tx, p, { status: 'booked', booking_id: outcome.row.id, owner_email: owner.email, start: slot.start.toISOString(), end: slot.end.toISOString() }, now, reviewer);
    const result: ReviewResult = {
      proposal_id: p.id,
      status: 'booked',
      booking_id: outcome.row.id,
      start: slot.start.toISOString(),
      end: slot.end.toISOString(),
      preempted_booking_ids: [...new Set(booked.flatMap((b) => b.preemptedIds))],
    };
    if (outcome.warnings.length) result.warnings = outcome.warnings;
    const weeks = p.repeatWeeks ? booked.map((b) => ({ start: b.row.startAt, end: b.row.endAt })) : undefined;
    return { ok: true, value: { result, mail: await mailFor(tx, p, { status: 'booked', start: slot.start, end: slot.end, weeks }) } };
  };
  const out = await runClaimOperation(db, { queueKey: ownerQueueKey(named.customerId, named.email), action: 'proposal.approve', gatesCalendars: true, run: approval }, { owner: named, now }).catch(gateRefusalAnswered);
  if (out.mail) await sendMail(out.mail);
  return out.result;
}

/**
 * The owner approves a requester's request to move a booked meeting (docs/public-scheduling.md
 * "Asking to move"): the booking is rescheduled in place through the one reschedule claim
 * (claims/rescheduleService.ts, docs/api.md "Reschedule"): the owner's queue and calendar
 * gate, the owner lock, the same arbitration as an approval (the booking's class with the
 * meeting type's effective preempt policy, nothing moved aside unless the owner confirmed
 * exactly it; `noPreemption` for a type's "book instantly"), the booking set aside from its
 * own new time. Accepted: in the same transaction the request becomes `booked` (naming the
 * booking, whose id stays); the requester, who asked for this time, stays accepted while the
 * other attendees get the update; the requester is mailed after commit, in their zone.
 * Refused: the booking is unchanged, the refusal is thrown and the request stays pending.
 */
export async function approveMove(db: Db, reviewer: OwnerActor, input: ApproveInput, bookingId: string, now: Date): Promise<ReviewResult> {
  const before = await findOwnProposal(db, reviewer, input.proposalId);
  if (before.status !== 'pending_review') throw notPending(before);
  const slot = chooseSlot(before, input);
  const [type]: (TypeRow | undefined)[] = before.meetingTypeId ? await db.select().from(publicMeetingTypes).where(eq(publicMeetingTypes.id, before.meetingTypeId)) : [];
  const mover: Mover = {
    kind: 'owner',
    customerId: reviewer.customerId,
    ownerId: reviewer.ownerId,
    email: reviewer.email,
    policy: (target) => (input.noPreemption ? { ...approvalPolicy(target.meetingClass, type), preemptPolicy: 'never', agentCanPreempt: false } : approvalPolicy(target.meetingClass, type)),
    confirmPreemption: async (tx, around, target, policy, start, end) => requireConfirmedPreemption(tx, approvalDecision(target.owner, policy, { start, end }, around, now).ids, input.confirmPreemption),
    keepAccepted: before.requesterEmail,
    auditDetails: proposalFacts(before),
  };
  const owner = await bookingOwner(db, mover, bookingId);
  const who = before.requesterName?.trim() || before.requesterEmail || 'the requester';
  const reschedule = rescheduleClaim(mover, owner, bookingId, { start: slot.start, end: slot.end, reason: `Moved at the request of ${who}` }, now, null);
  const op: ClaimOperation<{ result: ReviewResult; mail: MailMessage | null }> = {
    queueKey: reschedule.queueKey,
    action: 'proposal.approve',
    gatesCalendars: true,
    slot: reschedule.slot,
    run: async (tx, gate) => {
      await lockOwner(tx, owner.ownerId);
      const p = await findOwnProposal(tx, reviewer, input.proposalId, true);
      if (p.status !== 'pending_review') throw notPending(p);
      const [was]: (ClaimRow | undefined)[] = await tx.select().from(claimsTable).where(eq(claimsTable.id, bookingId));
      const moved = await reschedule.run(tx, gate);
      if (!moved.ok) return moved;
      await tx.update(bookingProposals).set({ status: 'booked', bookingId, updatedAt: now }).where(eq(bookingProposals.id, p.id));
      const result: ReviewResult = {
        proposal_id: p.id,
        status: 'booked',
        booking_id: bookingId,
        start: slot.start.toISOString(),
        end: slot.end.toISOString(),
        preempted_booking_ids: moved.value.preempted_booking_ids,
      };
      if (moved.value.warnings?.length) result.warnings = moved.value.warnings;
      return { ok: true, value: { result, mail: was ? await mailFor(tx, p, { status: 'booked', start: slot.start, end: slot.end }, { from: { start: was.startAt, end: was.endAt } }) : null } };
    },
  };
  const out = await runClaimOperation(db, op, { owner: { customerId: owner.customerId, email: owner.email }, now }).catch(gateRefusalAnswered);
  if (out.mail) await sendMail(out.mail);
  return out.result;
}

/**
 * The owner declines (optional reason, told to the requester by mail or to the agent by
 * notification). It runs in the claim runner's transaction, on the owner's queue, as an
 * approval of the same proposal does; the mail goes out after commit. Audited as
 * proposal.decline (outcome reject) by the owner.
 */
export async function declineProposal(db: Db, reviewer: OwnerActor, input: { proposalId: string; reason?: string | null }, now: Date): Promise<ReviewResult> {
  const owner = await proposalOwner(db, reviewer, input.proposalId);
  const decline = async (tx: Tx): Promise<Answer<{ p: ProposalRow; mail: MailMessage | null }>> => {
    const p = await findOwnProposal(tx, reviewer, input.proposalId, true);
    if (p.status !== 'pending_review') throw notPending(p);
    const reason = input.reason?.trim() || null;
    await tx.update(bookingProposals).set({ status: 'declined', declineReason: reason, updatedAt: now }).where(eq(bookingProposals.id, p.id));
    const actor = { kind: 'owner', ownerId: reviewer.ownerId, email: reviewer.email } as const;
    await writeProposalAudit(tx, p, { action: 'proposal.decline', actor, outcome: 'reject', reason, ownerEmail: owner.email, at: now });
    // An agent's booking held for approval: its hold is released and the agent hears booking.declined (docs/api.md "Approval policies").
    if (p.holdId) await releaseDeclinedHold(tx, p, reviewer, reason, owner, now);
    else await notifyAgent(tx, p, { status: 'declined', owner_email: owner.email, reason }, now, reviewer);
    // A declined request to move leaves the booking where it is; the requester's mail says so.
    const [kept] = p.movesBookingId ? await tx.select({ start: claimsTable.startAt, end: claimsTable.endAt }).from(claimsTable).where(eq(claimsTable.id, p.movesBookingId)) : [];
    return { ok: true, value: { p, mail: await mailFor(tx, p, { status: 'declined', reason }, kept ? { from: kept } : undefined) } };
  };
  const out = await runClaimOperation(db, { queueKey: ownerQueueKey(owner.customerId, owner.email), action: 'proposal.decline', run: decline });
  if (out.mail) await sendMail(out.mail);
  return { proposal_id: out.p.id, status: 'declined', booking_id: null, start: null, end: null, preempted_booking_ids: [] };
}
