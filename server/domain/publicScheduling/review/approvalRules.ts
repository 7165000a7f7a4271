import { inArray, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import type { NewClaim } from '@/db/hot/claims';
import { claims, meetingClasses, type bookingProposals } from '@/db/schema';
import { DomainError } from '../../errors';
import { newId } from '../../ids';
import { arbitrate, type RequestPolicy } from '../../scheduling';
import { ownerRules, type ClaimRequest, type ClaimRow, type LoadedClaim, type SchedulingTarget } from '../../claims';

type ProposalRow = typeof bookingProposals.$inferSelect;

/**
 * Two rules of an owner's approval (docs/dashboard.md "Review"): the title the
 * booking keeps, and no preemption the owner has not confirmed.
 */

/**
 * The title of the booking an approval makes: the agent's title, else the
 * meeting type's with the requester ("Intro call with Jane Doe"), else the
 * class with the requester or first attendee ("External meeting with Gavin").
 */
export function approvalTitle(p: Pick<ProposalRow, 'title' | 'requesterName' | 'requesterEmail' | 'attendees'>, typeTitle: string | null | undefined, className: string | null): string {
  if (p.title?.trim()) return p.title.trim();
  const first = p.attendees[0];
  const who = p.requesterName?.trim() || p.requesterEmail || first?.name?.trim() || first?.email || null;
  if (typeTitle) return who ? `${typeTitle} with ${who}` : typeTitle;
  const kind = className ? `${className.charAt(0).toUpperCase()}${className.slice(1)} meeting` : 'Meeting';
  return who ? `${kind} with ${who}` : kind;
}

/** A meeting an approval would move aside, described for the owner's confirmation. */
export type DisplacedMeeting = {
  id: string;
  kind: 'booking' | 'hold';
  title: string | null;
  start: string;
  end: string;
  meeting_class: string | null;
  attendees: { email: string; name: string | null }[];
};

/** The verdict on one time an owner may approve at: free, preempting (and what), or refused. */
export type ApprovalVerdict = { start: string; end: string; verdict: 'free' | 'preempts' | 'refused'; displaced: DisplacedMeeting[] };

/** The claims a slot's accepted decision moves aside, one id per claim (ranges of one all_free hold are the hold). */
function displacedIds(around: readonly LoadedClaim[], preempt: readonly string[]): string[] {
  const out = new Set<string>();
  for (const c of around) if (preempt.includes(c.id)) out.add(c.group ?? c.id);
  return [...out];
}

type Owner = Parameters<typeof ownerRules>[0];

/** What arbitration would decide for [start, end) on these claims: accepted free, accepted by preempting (ids), or refused (and why). */
export function approvalDecision(owner: Owner, policy: RequestPolicy, slot: { start: Date; end: Date }, around: readonly LoadedClaim[], now: Date): { verdict: ApprovalVerdict['verdict']; ids: string[]; reason?: string } {
  const decision = arbitrate({ start: slot.start.getTime(), end: slot.end.getTime(), ...policy }, { now: now.getTime(), rules: ownerRules(owner), claims: [...around] });
  if (decision.outcome === 'past_time') return { verdict: 'refused', ids: [], reason: 'PAST_TIME' };
  if (decision.outcome !== 'accept') return { verdict: 'refused', ids: [], reason: decision.failedReason };
  const ids = displacedIds(around, decision.preempt);
  return { verdict: ids.length ? 'preempts' : 'free', ids };
}

/** The meetings behind these claim ids, for the owner to read: title, time, attendees and class. */
export async function describeDisplaced(db: Executor, ids: readonly string[]): Promise<DisplacedMeeting[]> {
  if (!ids.length) return [];
  const rows = await db
    .select({ id: claims.id, kind: claims.kind, title: claims.title, start: claims.startAt, end: claims.endAt, attendees: claims.attendees, className: meetingClasses.name })
    .from(claims)
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .where(inArray(claims.id, [...ids]));
  return rows
    .sort((a, b) => a.start.getTime() - b.start.getTime())
    .map((r) => ({
      id: r.id,
      kind: r.kind,
      title: r.title,
      start: r.start.toISOString(),
      end: r.end.toISOString(),
      meeting_class: r.className,
      attendees: r.attendees.map((a) => ({ email: a.email, name: a.name ?? null })),
    }));
}

/**
 * Refuse an approval that would move a meeting aside which the owner did not
 * confirm (`confirmed`: the ids the owner agreed to displace). A stale page, or
 * a time that started to collide since, is refused with what it would displace,
 * never booked silently.
 */
export async function requireConfirmedPreemption(db: Executor, ids: readonly string[], confirmed: readonly string[] | undefined): Promise<void> {
  const unconfirmed = ids.filter((id) => !confirmed?.includes(id));
  if (!unconfirmed.length) return;
  const displaced = await describeDisplaced(db, ids);
  const names = displaced.map((d) => `"${d.title ?? (d.kind === 'hold' ? 'a hold' : 'a booking')}"`).join(', ');
  throw new DomainError('PREEMPTION_NOT_CONFIRMED', `Approving at this time would cancel ${names}; confirm that to go ahead`, { extra: { displaced } });
}

/** The reason a displaced meeting's agent and attendees are given, in words. */
export function preemptionReason(newTitle: string, className: string, ownerName: string | null): string {
  return `${ownerName ?? 'The calendar owner'} approved "${newTitle}" (${className}, a higher priority) at this time, which replaces this meeting.`;
}

/**
 * The booking an approval writes (a request's, or an agent's booking held for approval): the
 * request's customer, agent, text and attendees at the approved slot on the owner's calendar,
 * plus what differs by path (`more`: the source, the held hold, the attendees' answers).
 */
export function approvedClaim(
  p: ProposalRow,
  on: { ownerId: string; calendarId: string; meetingClassId: string; slot: { start: Date; end: Date }; title: string; attendees: ClaimRow['attendees'] },
  now: Date,
  more: Pick<ClaimRow, 'source'> & Partial<Pick<ClaimRow, 'holdId' | 'externalAccepted'>>,
): NewClaim {
  return {
    id: newId(now.getTime()),
    customerId: p.customerId,
    ownerId: on.ownerId,
    calendarId: on.calendarId,
    agentId: p.agentId,
    meetingClassId: on.meetingClassId,
    kind: 'booking',
    status: 'confirmed',
    startAt: on.slot.start,
    endAt: on.slot.end,
    title: on.title,
    description: p.message,
    attendees: on.attendees,
    proposalId: p.id,
    createdAt: now,
    updatedAt: now,
    ...more,
  };
}

/**
 * The owner's approval as a claim request (`proposal.review`): the owner acting, and the
 * preemption reason naming the approved meeting. The caller adds what its path needs (video,
 * announce).
 */
export function reviewRequest(r: { target: SchedulingTarget; policy: RequestPolicy; around: ClaimRequest['around']; title: string; reviewer: { ownerId: string; email: string }; auditDetails: Record<string, unknown>; now: Date; claim: NewClaim }): ClaimRequest {
  const { target, title, reviewer } = r;
  return {
    action: 'proposal.review',
    target,
    policy: r.policy,
    around: r.around,
    preemptionReason: preemptionReason(title, target.meetingClass.name, target.owner.name),
    actor: { kind: 'owner', ownerId: reviewer.ownerId, email: reviewer.email },
    auditDetails: r.auditDetails,
    now: r.now,
    claim: r.claim,
  };
}
