import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { claims } from '@/db/schema';
import type { AgentActor } from '../access';
import {
  announceSeries,
  ARBITRATION_MARGIN_MS,
  assertBookingSpan,
  bookingView,
  claimMadeWithKey,
  expireDueHolds,
  getBooking,
  inconsistentSeries,
  loadClaims,
  loadTargets,
  minimumOf,
  newBooking,
  occurrenceClaim,
  occurrencesOf,
  ownerQueueKey,
  ownerRules,
  refusedOccurrences,
  requestPolicy,
  rulesWarnings,
  runAnsweredClaim,
  runClaim,
  seriesBookingClaim,
  seriesItem,
  seriesRefusal,
  type Answer,
  type BookingInput,
  type BookingView,
  type ClaimOperation,
  type KeyAnswer,
  type LoadedClaim,
  type RefusedOccurrence,
  type SeriesView,
  type Verdict,
} from '../claims';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { arbitrate, localSpan } from '../scheduling';
import { assignmentOrder, assignmentReason, type MemberLoad } from './assignment';
import { memberLoads, resolvePool } from './poolService';
import { claimThroughPool, recordAssignment, type PoolAssignmentView } from './poolScheduling';

/**
 * A pool series (docs/arbitration.md "Recurring series", docs/groups.md "Pools"): POST
 * /v1/bookings with `pool` and `recurrence`. `pool_member: "same"` (default, or a member named
 * with owner_email): one member takes every occurrence, tried in the pool's assignment order, a
 * member's series refused (all-or-nothing, or fewer than min_occurrences) passing to the next.
 * `"per_occurrence"`: one transaction under every member's lock (owner-id order), each occurrence
 * given to the first member in assignment order whose arbiter accepts it, the load counted as the
 * series assigns (so the fairness rule spreads it as bookings one by one would).
 */

export type PoolSeriesInput = Omit<BookingInput, 'ownerEmail'> & { recurrence: string; minOccurrences?: number; pool: string; ownerEmail?: string; poolMember: 'same' | 'per_occurrence' };
type PoolSeriesView = SeriesView & { owner_email: string; assignment: PoolAssignmentView };

export async function poolSeriesBooking(db: Db, actor: AgentActor, input: PoolSeriesInput, now: Date, idempotencyKey: string | null, answer: KeyAnswer | null): Promise<PoolSeriesView> {
  const request = { pool: input.pool, ownerEmail: input.ownerEmail, meetingClass: input.meetingClass, calendarType: input.calendarType };
  if (input.poolMember === 'same' || input.ownerEmail) {
    return claimThroughPool(db, actor, request, now, (email) => seriesBookingClaim(actor, { ...input, ownerEmail: email }, now, idempotencyKey), answer);
  }
  assertBookingSpan(input.start, input.end);
  const pool = await resolvePool(db, actor.customerId, actor, input.pool);
  if (!pool.members.length) throw new DomainError('POOL_NOT_FOUND', `The pool ${pool.name} has no members left`);
  const loads = await memberLoads(db, pool, now);
  const emails = pool.members.map((m) => m.email);
  const operation: ClaimOperation<PoolSeriesView> = {
    queueKey: ownerQueueKey(actor.customerId, emails[0]),
    queueKeys: emails.map((e) => ownerQueueKey(actor.customerId, e)),
    gateOwners: emails.map((email) => ({ customerId: actor.customerId, email })),
    action: 'booking.create',
    run: (tx) => perOccurrence(tx, actor, input, pool.id, loads, now, idempotencyKey),
  };
  return runAnsweredClaim(db, operation, { answer });
}

async function perOccurrence(tx: Tx, actor: AgentActor, input: PoolSeriesInput, poolId: string, startLoads: MemberLoad[], now: Date, idempotencyKey: string | null): Promise<Answer<PoolSeriesView>> {
  const targets = await loadTargets(tx, actor.customerId, { ownerEmails: startLoads.map((m) => m.email), calendarType: input.calendarType, meetingClass: input.meetingClass }, true);
  const [made] = await Promise.all([claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now), ...targets.map((t) => expireDueHolds(tx, t.owner, now))]);
  const byEmail = new Map(targets.map((t) => [t.owner.email, t]));
  const lead = byEmail.get(assignmentOrder(startLoads)[0].email)!;
  const occurrences = occurrencesOf(input, lead.owner.timeZone);
  const min = minimumOf(input, occurrences.length);
  const summary = (seriesId: string, items: { index: number; row: { id: string; startAt: Date; endAt: Date }; email: string }[], refused: RefusedOccurrence[]) => ({
    series_id: seriesId,
    recurrence: input.recurrence,
    occurrences_requested: occurrences.length,
    min_occurrences: min,
    bookings: items.map((it) => ({ ...seriesItem('booking', it.row.id, localSpan(it.row.startAt, it.row.endAt, byEmail.get(it.email)!.owner.timeZone), it.index), owner_email: it.email })),
    refused_occurrences: refused,
  });
  if (made?.seriesId) {
    // The same key again after the effect committed: the series as it stands.
    const rows = await tx.select().from(claims).where(and(eq(claims.seriesId, made.seriesId), eq(claims.kind, 'booking'), isNull(claims.partOfHoldId))).orderBy(asc(claims.startAt));
    const emailOf = new Map(targets.map((t) => [t.owner.id, t.owner.email]));
    const indexOf = new Map(occurrences.map((o) => [o.start, o.index]));
    const first = await getBooking(tx, actor, rows[0].id, now);
    const items = rows.map((row, i) => ({ index: indexOf.get(row.startAt.getTime()) ?? i, row, email: emailOf.get(row.ownerId)! }));
    const assignment: PoolAssignmentView = { pool_id: poolId, reason: 'only_candidate', load_minutes: 0, weight: 1 };
    return { ok: true, value: { ...first, owner_email: first.owner_email, assignment, series: summary(made.seriesId, items, []) } };
  }
  const arounds = await Promise.all(targets.map((t) => Promise.all(occurrences.map((o) => loadClaims(tx, t.owner.id, new Date(o.start - ARBITRATION_MARGIN_MS), new Date(o.end + ARBITRATION_MARGIN_MS), now)))));
  const seriesId = newId(now.getTime());
  const policies = new Map(targets.map((t) => [t.owner.email, requestPolicy(actor, t)]));
  const loads = startLoads.map((m) => ({ ...m }));
  const gone = new Map(targets.map((t) => [t.owner.email, new Set<string>()]));
  const added = new Map(targets.map((t) => [t.owner.email, [] as LoadedClaim[]]));
  const assigned: { index: number; email: string; verdict: Verdict; assignment: PoolAssignmentView }[] = [];
  const refusedVerdicts: { email: string; verdict: Verdict }[] = [];
  for (const [i, occurrence] of occurrences.entries()) {
    const order = assignmentOrder(loads);
    let firstRefusal: { email: string; verdict: Verdict } | null = null;
    for (const [k, m] of order.entries()) {
      const t = targets.findIndex((x) => x.owner.email === m.email);
      const target = targets[t];
      const policy = policies.get(m.email)!;
      const around = [...arounds[t][i].filter((c) => !gone.get(m.email)!.has(c.id) && !gone.get(m.email)!.has(c.group ?? c.id)), ...added.get(m.email)!];
      const decision = arbitrate({ start: occurrence.start, end: occurrence.end, ...policy }, { now: now.getTime(), rules: ownerRules(target.owner), claims: around });
      const verdict = { occurrence, around, decision };
      if (decision.outcome !== 'accept') {
        firstRefusal ??= { email: m.email, verdict };
        continue;
      }
      for (const id of decision.preempt) gone.get(m.email)!.add(id);
      added.get(m.email)!.push(occurrenceClaim(occurrence, `${seriesId}:${i}`, 'booking', policy, actor.agentId, target.meetingClass.name));
      assigned.push({ index: occurrence.index, email: m.email, verdict, assignment: { pool_id: poolId, reason: assignmentReason(order.slice(k)), load_minutes: m.loadMinutes, weight: m.weight } });
      m.loadMinutes += (occurrence.end - occurrence.start) / 60_000;
      m.lastBookedAt = now.getTime();
      firstRefusal = null;
      break;
    }
    if (firstRefusal) refusedVerdicts.push(firstRefusal);
  }
  if (refusedVerdicts.some((r) => r.verdict.occurrence.index === 0 && r.verdict.decision.outcome === 'past_time')) return { ok: false, error: new DomainError('PAST_TIME', 'The requested start is in the past') };
  const refused = refusedVerdicts.flatMap((r) => {
    const target = byEmail.get(r.email)!;
    return refusedOccurrences(tx, [r.verdict], { actor, target, policy: policies.get(r.email)!, now, action: 'booking.create', seriesId, idempotencyKey }).map((x) => ({ ...x, owner_email: r.email }));
  });
  if (assigned.length < min) {
    return { ok: false, error: seriesRefusal(refused, `${refused.length} of ${occurrences.length} occurrences of the series no member of the pool accepts and at least ${min} must be booked: nothing was booked (see refused_occurrences)`) };
  }
  const done: { index: number; row: { id: string; startAt: Date; endAt: Date }; email: string; view: BookingView; assignment: PoolAssignmentView }[] = [];
  const soFar = new Set<string>();
  for (const a of assigned) {
    const target = byEmail.get(a.email)!;
    const o = a.verdict.occurrence;
    const claim = { ...newBooking({ actor, ownerId: target.owner.id, calendarId: target.calendar.id, meetingClassId: target.meetingClass.id, start: new Date(o.start), end: new Date(o.end), now, idempotencyKey }, input), seriesId };
    const auditDetails = { series_id: seriesId, occurrence: o.index, pool: { pool_id: poolId, assignment: a.assignment } };
    const r = await runClaim(tx, { action: 'booking.create', target, policy: policies.get(a.email)!, claim, now, around: a.verdict.around, auditDetails, preemptedSoFar: soFar, video: input.video });
    if (!r.ok) throw inconsistentSeries();
    defer(tx, recordAssignment(tx, { claimId: r.row.id, customerId: actor.customerId, poolId, ownerId: target.owner.id, assignment: a.assignment, now }));
    const view = bookingView(r.row, { ownerEmail: target.owner.email, timeZone: target.owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, warnings: rulesWarnings(target.owner), preemptedIds: r.preemptedIds, preemptedClaims: r.preemptedClaims, video: r.video });
    done.push({ index: a.index, row: r.row, email: a.email, view, assignment: a.assignment });
  }
  announceSeries(tx, actor, { id: seriesId, customerId: actor.customerId, recurrence: input.recurrence, timeZone: lead.owner.timeZone, first: occurrences[0], now }, { ownerEmail: done[0].email, meetingClass: lead.meetingClass.name, requested: occurrences.length, min, bookingIds: done.map((d) => d.row.id), refused });
  return { ok: true, value: { ...done[0].view, owner_email: done[0].email, assignment: done[0].assignment, series: summary(seriesId, done, refused) } };
}
