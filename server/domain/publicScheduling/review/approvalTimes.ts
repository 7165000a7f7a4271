import { eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { owners, publicMeetingTypes } from '@/db/schema';
import { loadClaims, ownerRules } from '../../claims';
import { searchSlots } from '../../scheduling';
import { findOwnProposal, type Reviewer } from './owner';
import { approvalDecision, describeDisplaced, type ApprovalVerdict } from './approvalRules';
import { approvalClass, approvalPolicy, invalid, type TypeRow } from './reviewDecision';

/**
 * What the review page asks before an approval (docs/dashboard.md "Review"): the times the
 * owner could approve a proposal at, and what approving at given times would do. Neither has
 * a side effect; approving still runs arbitration (reviewDecision.ts).
 */

const APPROVAL_SEARCH_DAYS = 7;

export type ApprovalTimesInput = { proposalId: string; meetingClass?: string; durationMinutes?: number };
export type ApprovalTimes = {
  meeting_class: string;
  duration_minutes: number;
  /** Where the times were looked for: the requested window, else the coming APPROVAL_SEARCH_DAYS days. */
  window: { start: string; end: string };
  from_requested_window: boolean;
  slots: { start: string; end: string; preempts: boolean }[];
};

/**
 * Times the owner could approve a proposal at (the review page's choice for a
 * free-text request): slots of `durationMinutes` (default the proposal's,
 * else 30) that arbitration would accept now for this approval, with the same
 * class and policy as an approval (approve.ts), inside the requested window (from
 * now), or in the coming days when it names none or it has passed. No side
 * effect; approving still runs arbitration.
 */
export async function approvalTimes(db: Db, reviewer: Reviewer, input: ApprovalTimesInput, now: Date): Promise<ApprovalTimes> {
  const p = await findOwnProposal(db, reviewer, input.proposalId);
  const meetingClass = await approvalClass(db, reviewer, p, input.meetingClass);
  const duration = input.durationMinutes ?? p.durationMinutes ?? 30;
  if (!(Number.isInteger(duration) && duration >= 5 && duration <= 480)) throw invalid('duration_minutes', 'a booking spans 5 to 480 minutes');
  const [type]: (TypeRow | undefined)[] = p.meetingTypeId ? await db.select().from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  const [owner] = await db.select().from(owners).where(eq(owners.id, p.ownerId));
  const requested = p.requestedStart && p.requestedEnd && p.requestedEnd > now ? { start: p.requestedStart > now ? p.requestedStart : now, end: p.requestedEnd } : null;
  const window = requested ?? { start: now, end: new Date(now.getTime() + APPROVAL_SEARCH_DAYS * 86_400_000) };
  const DAY = 26 * 3_600_000; // daily limits weigh the local days around the window
  // A request to move: the booking it moves never blocks its own new time; a held booking's hold neither.
  const claims = (await loadClaims(db, owner.id, new Date(window.start.getTime() - DAY), new Date(window.end.getTime() + DAY), now)).filter((c) => c.id !== p.movesBookingId && c.id !== p.holdId);
  const found = searchSlots({
    rules: ownerRules(owner),
    claims,
    now: now.getTime(),
    durationMinutes: duration,
    request: approvalPolicy(meetingClass, type),
    window: { start: window.start.getTime(), end: window.end.getTime() },
    maxResults: 200,
  });
  // Distinct times, earliest first: each slot starts at or after the previous one ends.
  const slots: { start: number; end: number; preempts: boolean }[] = [];
  for (const slot of found.slots) if (!slots.length || slot.start >= slots[slots.length - 1].end) slots.push(slot);
  return {
    meeting_class: meetingClass.name,
    duration_minutes: duration,
    window: { start: window.start.toISOString(), end: window.end.toISOString() },
    from_requested_window: requested !== null,
    slots: slots.slice(0, 12).map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString(), preempts: s.preempts })),
  };
}

/**
 * What approving at each of these times would do now, with the same class and
 * policy an approval books with: free, preempting (and which meetings:
 * title, time, attendees, class), or refused. The review page defaults to the
 * first free one and asks before a preempting one. No side effect.
 */
export async function approvalVerdicts(db: Db, reviewer: Reviewer, input: { proposalId: string; times: { start: string; end: string }[]; meetingClass?: string }, now: Date): Promise<ApprovalVerdict[]> {
  if (!input.times.length) return [];
  const p = await findOwnProposal(db, reviewer, input.proposalId);
  if (!p.meetingClassId && !input.meetingClass) return input.times.map((t) => ({ ...t, verdict: 'free', displaced: [] }));
  const meetingClass = await approvalClass(db, reviewer, p, input.meetingClass);
  const [type]: (TypeRow | undefined)[] = p.meetingTypeId ? await db.select().from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  // A collective proposal: every host judged; refused if any refuses, preempting if any preempts.
  const hosts = await db.select().from(owners).where(p.hostOwnerIds?.length ? inArray(owners.id, p.hostOwnerIds) : eq(owners.id, p.ownerId));
  const spans = input.times.map((t) => ({ start: new Date(t.start), end: new Date(t.end) }));
  const DAY = 26 * 3_600_000; // daily limits weigh the local days around the times
  const from = new Date(Math.min(...spans.map((s) => s.start.getTime())) - DAY);
  const to = new Date(Math.max(...spans.map((s) => s.end.getTime())) + DAY);
  // A request to move: its booking never conflicts with its own new time (docs/public-scheduling.md "Asking to move");
  // nor an agent's held booking with its own hold (docs/api.md "Approval policies").
  const claimsOf = (await Promise.all(hosts.map((h) => loadClaims(db, h.id, from, to, now)))).map((list) => list.filter((c) => c.id !== p.movesBookingId && c.id !== p.holdId));
  const policy = approvalPolicy(meetingClass, type);
  const decided = spans.map((s) => {
    const each = hosts.map((h, i) => approvalDecision(h, policy, s, claimsOf[i], now));
    const verdict: ApprovalVerdict['verdict'] = each.some((d) => d.verdict === 'refused') ? 'refused' : each.some((d) => d.verdict === 'preempts') ? 'preempts' : 'free';
    return { verdict, ids: verdict === 'refused' ? [] : each.flatMap((d) => d.ids) };
  });
  const described = new Map((await describeDisplaced(db, [...new Set(decided.flatMap((d) => d.ids))])).map((d) => [d.id, d]));
  return input.times.map((t, i) => ({ start: t.start, end: t.end, verdict: decided[i].verdict, displaced: decided[i].ids.flatMap((id) => described.get(id) ?? []) }));
}
