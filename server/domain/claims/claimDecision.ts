import { withSpan } from '@/server/observability/tracing';
import { and, inArray, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { promoteHold } from '@/db/hot/claims';
import { defer } from '@/db/hot/driver';
import { movedRow, moveBookingRow } from '@/db/hot/move';
import { scheduleReminders } from '@/db/hot/reminders';
import { claims, type BookingVideoLinkRow } from '@/db/schema';
import type { DomainError } from '../errors';
import { enqueueNotification } from '../notificationService';
import type { CalendarGate } from '../calendars/mirror';
import { recordWebhookEvent } from '../webhooks/outbox';
import { recordVideoLink, videoLinkView, type VideoRequest } from '../calendars/videoLinks';
import { arbitrate, localSpan, warningsFor, type Decision, type RequestPolicy } from '../scheduling';
import { MINUTE } from '../scheduling/localTime';
import { noteFreed } from './freed';
import { writeAudit, type AuditAction, type AuditActor, type AuditEntry } from '../audit';
import { claimRow, insertClaim, releaseHoldParts, type NewClaim } from './claimStore';
import { ARBITRATION_MARGIN_MS, loadAround, loadClaims, ownerRules, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { preemptedSet } from './groupDecision';
import { placeReplacementHolds, type ReplacementHold } from './replacementHold';
import { loadGroupMembers } from './groupMembers';
import { decisionError, rejectionAudit } from './rejection';
import { metrics, recordArbitration } from '@/server/observability/metrics';

/**
 * Deciding a claim and applying the decision, in a transaction the claim runner opened
 * (claimRunner.ts; docs/architecture.md, "Deciding on time"): the request's policy, the pure
 * arbitration on the claims around it, and on acceptance the preemptions, the hold a confirm
 * promotes, the claim itself, its notifications, webhook event and audit row. What a refusal
 * answers and records is rejection.ts's.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The claim to store, with the buffers its decision used (docs/arbitration.md "Buffers"): the
 * policy's, which the claim keeps from then on (a move keeps the booking's: moverPolicy).
 */
function withBuffers(claim: NewClaim, policy: RequestPolicy): NewClaim {
  const before = Math.round((policy.bufferBeforeMs ?? 0) / MINUTE);
  const after = Math.round((policy.bufferAfterMs ?? 0) / MINUTE);
  if (claim.bufferBeforeMinutes === before && claim.bufferAfterMinutes === after) return claim;
  return { ...claim, bufferBeforeMinutes: before, bufferAfterMinutes: after };
}

/**
 * A claim to decide: the claim to insert when accepted, on a target whose owner row the
 * caller's transaction has locked, with the request's policy. The claim says the rest: its
 * times, customer and agent (null when an owner decides in the dashboard), its
 * Idempotency-Key, and for a confirm the hold it comes from (set aside by the decision and
 * promoted when accepted). `around`: the claims within VERDICT_CLAIMS_MARGIN_MS of the
 * claim, due holds expired, when the caller loaded them with the target (loadClaimTarget).
 */
export type ClaimRequest = {
  action: AuditAction;
  target: SchedulingTarget;
  policy: RequestPolicy;
  claim: NewClaim;
  now: Date;
  around?: LoadedClaim[];
  /** A confirm of an all_free window hold: its further ranges are released in the same transaction. */
  releaseHoldParts?: boolean;
  /** Without `around`: the calendar gate checked in the read of the claims around (CalendarGateNeeded; the runner passes it). */
  gate?: CalendarGate;
  /** Why what gives way is moved aside, in words (its status reason, and `reason` of booking.preempted); default: "preempted by <class>". */
  preemptionReason?: string;
  /** Who decides, when not the claim's agent: the owner approving a proposal in the dashboard (docs/reliability.md, "Audit actors"). */
  actor?: AuditActor;
  /** Facts the decision's audit row carries besides its own (an approval's proposal). */
  auditDetails?: Record<string, unknown>;
  /**
   * A group claim (groupService.ts): the claims its earlier members already pushed aside in
   * this transaction, so a group hit at two owners gives way, and is announced, once.
   */
  preemptedSoFar?: Set<string>;
  /**
   * A reschedule (docs/api.md "Reschedule"): `claim` is this confirmed booking (same id) at its
   * new time. It is left out of the claims around (it never conflicts with itself, and its
   * minutes leave its old day), and on acceptance its row is moved (UPDATE of its range, so
   * the exclusion constraint still has the last word) instead of a claim inserted.
   */
  moves?: {
    from: ClaimRow;
    reason: string | null;
    timeZone: string;
    /** The attendee who asked for the new time (a requester's request to move): their answer stays accepted. */
    keepAccepted?: string | null;
  };
  /**
   * A confirm whose hold's decision stands (standingDecision.ts, docs/arbitration.md "Confirm:
   * when the hold's decision stands"): accepted without arbitrating again, nothing preempted;
   * the promotion, booking, audit row and webhook event are the accepted decision's, as below.
   */
  decisionStands?: boolean;
  /**
   * false: the caller announces the booking itself (an owner approving a held booking sends
   * booking.approved, docs/api.md "Approval policies"), so no booking.created/confirmed event.
   */
  announce?: false;
  /**
   * The agent's video setting for the booking (POST /v1/bookings, a hold's confirm, a held
   * booking's approval; a group's member: the organizer's link it shows): its link is recorded
   * with the booking and carried by booking.created/confirmed (docs/calendars.md "Video links").
   */
  video?: VideoRequest | null;
};

/** What a decision returns: the accepted claim's row with what its answer needs, or the rejection (its audit row is written). */
export type ClaimResult = { ok: true; row: ClaimRow; preemptedIds: string[]; preemptedClaims: { id: string; kind: 'hold' | 'booking' }[]; warnings: string[]; video?: BookingVideoLinkRow | null } | { ok: false; error: DomainError };

/**
 * Arbitrate a claim and apply the decision in the caller's transaction (the runner's, claimRunner.ts):
 * preempt what gives way, insert, notify, and write the audit row; a rejection is audited
 * too and returned, not thrown, so the audit commits. The claim and its audit row are
 * deferred (db/hot/driver.ts): they go out with whatever the caller sends last and COMMIT,
 * and a failing insert (the exclusion constraint) fails the transaction.
 */
export async function runClaim(tx: Tx, request: ClaimRequest): Promise<ClaimResult> {
  const { target, now } = request;
  const claim = withBuffers(request.claim, request.policy);
  const start = claim.startAt.getTime();
  const end = claim.endAt.getTime();
  const holdId = claim.holdId ?? null;
  const policy = { start, end, ...request.policy };
  const context = { now: now.getTime(), rules: ownerRules(target.owner), excludeClaimIds: holdId ? [holdId] : undefined };
  // A moved booking is not around its own new time: not a conflict, and its minutes leave its old day.
  const movingId = request.moves?.from.id;
  const others = (list: LoadedClaim[]) => (movingId ? list.filter((c) => c.id !== movingId) : list);
  let around = others(request.around ?? (await loadAround(tx, target.owner.id, claim.startAt, claim.endAt, now, undefined, request.gate)));
  let decision: Decision = request.decisionStands
    ? { outcome: 'accept', preempt: [], warnings: warningsFor(context.rules) }
    : withSpan('claim.arbitration', { 'owner.id': target.owner.id, 'customer.id': claim.customerId, action: request.action }, (span) => {
        recordArbitration(request.action);
        const d = arbitrate(policy, { ...context, claims: around });
        span.setAttributes(decisionAttributes(d));
        return d;
      });
  if (decision.outcome === 'reject' || decision.outcome === 'counter_propose') {
    // The verdict stands (it depends only on the claims loaded); its alternatives and
    // next_available look up to 72 h further out.
    around = others(await loadClaims(tx, target.owner.id, new Date(start - ARBITRATION_MARGIN_MS), new Date(end + ARBITRATION_MARGIN_MS), now));
    decision = withSpan('claim.alternatives', { 'owner.id': target.owner.id }, () => arbitrate(policy, { ...context, claims: around }));
  }
  const actor: AuditActor = request.actor ?? (claim.agentId ? { kind: 'agent', agentId: claim.agentId } : { kind: 'system' });
  const audit = {
    customerId: claim.customerId,
    agentId: claim.agentId ?? null,
    actor,
    ownerId: target.owner.id,
    ownerEmail: target.owner.email,
    action: request.action,
    meetingClass: target.meetingClass.name,
    start: claim.startAt,
    end: claim.endAt,
    holdId,
    idempotencyKey: claim.idempotencyKey ?? null,
    at: now,
  };
  if (decision.outcome !== 'accept') {
    const rejected = rejectionAudit(audit, decision);
    if (request.auditDetails) rejected.details = { ...request.auditDetails, ...rejected.details };
    defer(tx, writeAudit(tx, rejected));
    return { ok: false, error: decisionError(decision, around, { target, policy: request.policy, start, end, now: now.getTime() }) };
  }

  // A hold gives way whole: the ranges of an all_free window hold are one claim (its id is the group's).
  const preempted = givingWay(around.filter((c) => decision.preempt.includes(c.id) && !request.preemptedSoFar?.has(c.group ?? c.id)));
  if (preempted.length) {
    await preempt(tx, preempted, claim, target, now, { actor, cause: request.action, reason: request.preemptionReason }, request.preemptedSoFar);
    metrics().preemptions.inc(preempted.length); // counted in the transaction: a rare exclusion retry can count it twice
  }
  // The hold a confirm promotes leaves the exclusion constraint before its booking enters it (same pipeline, in order).
  if (holdId && request.releaseHoldParts) defer(tx, releaseHoldParts(tx, holdId, 'released', 'released on confirm', now));
  if (holdId) defer(tx, promoteHold(tx, holdId, claim.id, now));
  const preemptedIds = preempted.map((p) => p.id);
  const preemptedClaims = preempted.map((p) => ({ id: p.id, kind: p.kind }));
  if (request.moves) {
    const row = await moveBooking(tx, request, actor, audit, preemptedIds);
    return { ok: true, row, preemptedIds, preemptedClaims, warnings: decision.warnings };
  }
  const isHold = claim.kind === 'hold';
  defer(tx, insertClaim(tx, claim));
  // A booking's reminders, with it (docs/reliability.md "Reminders"); a move or cancel later moves or drops them in the database (migration 0035).
  if (!isHold && request.policy.reminderOffsetsMinutes?.length) {
    defer(tx, scheduleReminders(tx, { customerId: claim.customerId, bookingId: claim.id, startAt: claim.startAt, offsets: request.policy.reminderOffsetsMinutes, now }));
  }
  const group = { ...(claim.groupId ? { group_id: claim.groupId } : {}), ...(claim.seriesId ? { series_id: claim.seriesId } : {}) };
  const details = claim.groupId ? { ...request.auditDetails, ...group } : request.auditDetails;
  defer(tx, writeAudit(tx, { ...audit, outcome: 'accept', holdId: isHold ? claim.id : holdId, bookingId: isHold ? null : claim.id, preemptedBookingIds: preemptedIds, details }));
  // The agent's video link, recorded with the booking (after its insert in the pipeline) so its event carries it.
  const video = !isHold && request.video ? await recordVideoLink(tx, { claimId: claim.id, ownerId: target.owner.id, calendarId: target.calendar.id, setting: request.video }, now) : null;
  if (!isHold && claim.agentId && request.announce !== false) {
    // booking.created / booking.confirmed for the agent's webhook endpoints, committed with the booking (docs/webhooks.md); one per member of a group.
    const data = { booking_id: claim.id, ...(holdId ? { hold_id: holdId } : {}), owner_email: target.owner.email, meeting_class: target.meetingClass.name, start: claim.startAt.toISOString(), end: claim.endAt.toISOString(), ...group, ...(video ? { video: videoLinkView(video, true) } : {}) };
    defer(tx, recordWebhookEvent(tx, { agentId: claim.agentId, kind: holdId ? 'booking.confirmed' : 'booking.created', data, now, actor }));
  }
  return { ok: true, row: claimRow(claim), preemptedIds, preemptedClaims, warnings: decision.warnings, video };
}

/**
 * Apply an accepted reschedule: the booking's row moves to its new time (one UPDATE, after
 * the preemptions, so the exclusion constraint judges the new range; deferred to COMMIT, so
 * the caller must hold the booking row locked, as it was read: rescheduleService.ts and
 * groupReschedule.ts read it FOR UPDATE), its attendees'
 * responses go back to needs-action and its revision (`sequence`) grows, so the invitation
 * sweep and the provider write-back send an update with the same UID. One audit row
 * `booking.reschedule` with both times and the actor; the booking's agent hears of it
 * (booking.rescheduled, notification and webhook) when someone else moved it, and of its own
 * move as an own event (include_own readers only).
 */
async function moveBooking(tx: Tx, request: ClaimRequest, actor: AuditActor, audit: Omit<AuditEntry, 'outcome'>, preemptedIds: string[]): Promise<ClaimRow> {
  const { claim, now, target } = request;
  const { from, reason, timeZone, keepAccepted } = request.moves!;
  // Everyone answers again, except who asked for this very time (docs/public-scheduling.md "Asking to move").
  const attendees = (from.attendees ?? []).map((a) => ({ ...a, response: keepAccepted && a.email === keepAccepted && a.response === 'accepted' ? a.response : ('needs_action' as const) }));
  const externalAccepted = attendees.some((a) => a.external && a.response === 'accepted');
  // Deferred to COMMIT as a new claim's insert is (db/hot/move.ts): `from` was read locked, so the row it becomes is known.
  const move = { startAt: claim.startAt, endAt: claim.endAt, attendees, externalAccepted, statusReason: reason, updatedAt: now };
  defer(tx, moveBookingRow(tx, from.id, move));
  // The time it leaves goes to the waitlist (docs/arbitration.md "Waitlist").
  noteFreed(tx, now, [{ ownerId: from.ownerId, start: from.startAt, end: from.endAt }]);
  const row = movedRow(from, move);
  const was = localSpan(from.startAt, from.endAt, timeZone);
  const is = localSpan(row.startAt, row.endAt, timeZone);
  defer(tx, writeAudit(tx, { ...audit, outcome: 'accept', reason, holdId: from.holdId, bookingId: from.id, preemptedBookingIds: preemptedIds, details: { ...request.auditDetails, from: was, to: is } }));
  // Its own move is an own event: kept for include_own readers only (docs/webhooks.md "Own events").
  const own = actor.kind === 'agent' && actor.agentId === from.agentId;
  if (from.agentId) {
    const movedBy = actor.kind === 'agent' ? { kind: 'agent' as const, agent_id: actor.agentId } : actor.kind === 'owner' ? { kind: 'owner' as const, email: actor.email } : actor.kind === 'requester' ? { kind: 'requester' as const, email: actor.email } : undefined;
    const data = { booking_id: from.id, owner_email: target.owner.email, from: was, to: is, moved_by: movedBy, reason, ...(from.groupId ? { group_id: from.groupId } : {}) };
    await enqueueNotification(tx, { customerId: from.customerId, agentId: from.agentId, kind: 'booking.rescheduled', data, now, actor, own });
  }
  return row;
}

/** A decision's span attributes: outcome (accepted or refused) and the reason code of a refusal. */
function decisionAttributes(d: ReturnType<typeof arbitrate>): Record<string, string> {
  if (d.outcome === 'accept') return { outcome: 'accepted' };
  return { outcome: 'refused', reason: d.outcome === 'past_time' ? 'PAST_TIME' : d.reason };
}

/** The claims that give way, one per claim: ranges of one all_free hold become that hold (its id). */
function givingWay(overlapping: LoadedClaim[]): LoadedClaim[] {
  const seen = new Set<string>();
  const out: LoadedClaim[] = [];
  for (const c of overlapping) {
    const id = c.group ?? c.id;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(c.group ? { ...c, id } : c);
  }
  return out;
}

/**
 * Mark the claims that give way preempted (every range of a hold, every member of a group at
 * any owner: docs/groups.md), tell their agents (a group's once, naming every member), and
 * write one `claim.preempt` audit row each, by the decision's actor.
 */
async function preempt(
  tx: Tx,
  preempted: LoadedClaim[],
  claim: NewClaim,
  target: SchedulingTarget,
  now: Date,
  by: { actor: AuditActor; cause: AuditAction; reason?: string },
  soFar?: Set<string>,
): Promise<void> {
  const reason = by.reason ?? `preempted by ${target.meetingClass.name}`;
  const ids = preempted.map((p) => p.id);
  const groups = preempted.filter((p) => p.group).map((p) => p.id);
  // Members of the groups hit here, at every owner (the pure rule: groupDecision.ts preemptedSet).
  const groupIds = [...new Set(preempted.map((p) => p.groupId).filter((g): g is string => !!g))];
  const members = (await loadGroupMembers(tx, groupIds)).filter((m) => m.status === 'active' || m.status === 'confirmed');
  const byGroup = new Map<string, string[]>();
  for (const m of members) byGroup.set(m.groupId, [...(byGroup.get(m.groupId) ?? []), m.id]);
  const all = preemptedSet(ids, preempted.map((p) => ({ id: p.id, groupId: p.groupId ?? null })), byGroup).preempt;
  for (const id of all) soFar?.add(id);
  const where = [inArray(claims.id, all), ...(groups.length ? [inArray(claims.partOfHoldId, groups)] : []), ...(groupIds.length ? [and(inArray(claims.groupId, groupIds), inArray(claims.status, ['active', 'confirmed']))!] : [])];
  const freed = await tx
    .update(claims)
    .set({ status: 'preempted', statusReason: reason, preemptedByClaimId: claim.id, updatedAt: now })
    .where(where.length > 1 ? or(...where) : where[0])
    .returning({ id: claims.id, ownerId: claims.ownerId, start: claims.startAt, end: claims.endAt, partOf: claims.partOfHoldId, kind: claims.kind });
  // What the claim does not take goes to the waitlist before COMMIT (docs/arbitration.md "Waitlist"), after any replacement hold below.
  noteFreed(tx, now, freed.map((r) => ({ ownerId: r.ownerId, start: r.start, end: r.end, holdId: r.kind === 'hold' ? (r.partOf ?? r.id) : null })));
  // A bumped meeting rebooked: its replacement hold, in this transaction (docs/arbitration.md "Bumped meetings rebooked").
  const replacements = await placeReplacementHolds(tx, preempted, { claim, target, actor: by.actor, now });
  const here = new Set(ids);
  const elsewhere: LoadedClaim[] = members
    .filter((m) => !here.has(m.id))
    .map((m) => ({ id: m.id, kind: m.kind, agentId: m.agentId, start: m.startAt.getTime(), end: m.endAt.getTime(), countedMinutes: 0, priority: 0, sacred: false, meetingClass: m.meetingClass, groupId: m.groupId }));
  const ownerOf = new Map(members.map((m) => [m.id, { id: m.ownerId, email: m.ownerEmail }]));
  const announced = new Set<string>();
  for (const p of [...preempted, ...elsewhere]) {
    const owner = ownerOf.get(p.id) ?? { id: target.owner.id, email: target.owner.email };
    defer(
      tx,
      writeAudit(tx, {
        customerId: claim.customerId,
        agentId: null,
        actor: by.actor,
        ownerId: owner.id,
        ownerEmail: owner.email,
        action: 'claim.preempt',
        outcome: 'accept',
        reason,
        meetingClass: p.meetingClass ?? null,
        start: new Date(p.start),
        end: new Date(p.end),
        holdId: p.kind === 'hold' ? p.id : null,
        bookingId: p.kind === 'booking' ? p.id : null,
        details: { claim_kind: p.kind, preempted_by_claim_id: claim.id, preempted_agent_id: p.agentId, cause: by.cause, ...(p.groupId ? { group_id: p.groupId } : {}), ...replacementOf(replacements, p.id, 'replacement_hold_id') },
        at: now,
      }),
    );
    if (!p.agentId) continue;
    // A group's agent hears once, with every member (all released).
    if (p.groupId) {
      if (announced.has(p.groupId)) continue;
      announced.add(p.groupId);
    }
    const groupData = p.groupId
      ? {
          group_id: p.groupId,
          members: members.filter((m) => m.groupId === p.groupId).map((m) => ({ owner_email: m.ownerEmail, [m.kind === 'hold' ? 'hold_id' : 'booking_id']: m.id, status: 'preempted' })),
        }
      : {};
    await enqueueNotification(tx, {
      customerId: claim.customerId,
      agentId: p.agentId,
      kind: 'booking.preempted',
      data: {
        [p.kind === 'hold' ? 'hold_id' : 'booking_id']: p.id,
        claim_kind: p.kind,
        owner_email: owner.email,
        start: iso(p.start),
        end: iso(p.end),
        preempted_by_meeting_class: target.meetingClass.name,
        reason,
        ...groupData,
        ...replacementOf(replacements, p.id, 'replacement_hold'),
      },
      now,
      actor: by.actor,
    });
  }
}

/** What names a preempted booking's replacement (replacementHold.ts): the hold (or null: none could be placed), nothing when its class asks for none. */
function replacementOf(replacements: Map<string, ReplacementHold>, id: string, key: 'replacement_hold' | 'replacement_hold_id'): Record<string, unknown> {
  if (!replacements.has(id)) return {};
  const hold = replacements.get(id)!;
  return { [key]: key === 'replacement_hold' ? hold : (hold?.id ?? null) };
}
