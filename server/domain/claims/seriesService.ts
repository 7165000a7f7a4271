import { asc, eq } from 'drizzle-orm';
import type { Executor, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { claims } from '@/db/schema';
import type { AgentActor } from '../access';
import { writeAudit } from '../audit';
import { DomainError, invalidField } from '../errors';
import { newId } from '../ids';
import { approvalRequired } from '../approvals/policyService';
import { arbitrate, localSpan, type Decision, type LocalSpan, type RequestPolicy } from '../scheduling';
import { expandSeries, SeriesError, type SeriesOccurrence } from '../scheduling/series';
import { runClaim } from './claimDecision';
import { ownerQueueKey, type Answer, type ClaimOperation } from './claimRunner';
import { claimMadeWithKey } from './claimStore';
import { ARBITRATION_MARGIN_MS, expireDueHolds, loadClaims, loadTarget, ownerRules, requestPolicy, rulesWarnings, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { newBooking, type BookingInput } from './bookingService';
import { decisionError, rejectionAudit } from './rejection';
import { bookingView, type BookingView } from './views';
import { assertBookingSpan } from './windows';

/**
 * A recurring series booked directly (docs/arbitration.md "Recurring series"): a claim of N
 * occurrences on the one claim path. The owner's queue and lock, one transaction: every
 * occurrence arbitrated by the same arbiter as a single booking (each seeing the occurrences
 * accepted before it), then either as many committed as allowed (all of them, or with
 * `min_occurrences` at least that many) through runClaim, or nothing and one refusal naming each
 * refused occurrence with its reason and alternatives.
 */

export type SeriesBookingInput = BookingInput & { recurrence: string; minOccurrences?: number };

/** A refused occurrence: its place in the series and the refusal a single booking of it gets. */
type RefusedOccurrence = {
  index: number;
  start: string;
  end: string;
  start_local: string;
  end_local: string;
  code: string;
  message: string;
  reason?: string;
} & Record<string, unknown>;

/** The series beside its first booked occurrence (the answer is that occurrence's booking). */
export type SeriesView = BookingView & {
  series: {
    series_id: string;
    recurrence: string;
    occurrences_requested: number;
    min_occurrences: number;
    bookings: ({ index: number; booking_id: string } & LocalSpan)[];
    refused_occurrences: RefusedOccurrence[];
  };
};

/** The occurrences of the rule from start in `timeZone`; a rule outside the subset is a 400 on `recurrence`. */
function occurrencesOf(input: SeriesBookingInput, timeZone: string): SeriesOccurrence[] {
  try {
    return expandSeries({ rrule: input.recurrence, start: input.start.getTime(), end: input.end.getTime(), timeZone });
  } catch (err) {
    if (err instanceof SeriesError) throw invalidField('recurrence', err.message);
    throw err;
  }
}

/** min_occurrences checked against the number of occurrences (default: all of them). */
function minimumOf(input: SeriesBookingInput, n: number): number {
  const min = input.minOccurrences ?? n;
  if (min < 1 || min > n) throw invalidField('min_occurrences', `must be between 1 and the series' ${n} occurrences`);
  return min;
}

/** An accepted occurrence as the claims around the next ones see it (its minutes count toward its day). */
function asLoaded(o: SeriesOccurrence, id: string, policy: RequestPolicy, agentId: string, meetingClass: string): LoadedClaim {
  return { id, kind: 'booking', start: o.start, end: o.end, countedMinutes: (o.end - o.start) / 60_000, priority: policy.priority, sacred: false, meetingClass, agentId, bufferBeforeMs: policy.bufferBeforeMs, bufferAfterMs: policy.bufferAfterMs };
}

type Verdict = { occurrence: SeriesOccurrence; around: LoadedClaim[]; decision: Decision };

/**
 * The pure pass: each occurrence arbitrated on the claims around it, less what earlier
 * occurrences pushed aside, plus the earlier occurrences accepted (ids of the claims to insert).
 */
function decideAll(occurrences: SeriesOccurrence[], arounds: LoadedClaim[][], policy: RequestPolicy, ctx: { target: SchedulingTarget; now: Date; ids: string[]; agentId: string }): Verdict[] {
  const rules = ownerRules(ctx.target.owner);
  const gone = new Set<string>();
  const accepted: LoadedClaim[] = [];
  return occurrences.map((occurrence, i) => {
    const around = [...arounds[i].filter((c) => !gone.has(c.id) && !gone.has(c.group ?? c.id)), ...accepted];
    const decision = arbitrate({ start: occurrence.start, end: occurrence.end, ...policy }, { now: ctx.now.getTime(), rules, claims: around });
    if (decision.outcome === 'accept') {
      for (const id of decision.preempt) gone.add(id);
      accepted.push(asLoaded(occurrence, ctx.ids[i], policy, ctx.agentId, ctx.target.meetingClass.name));
    }
    return { occurrence, around, decision };
  });
}

/** POST /v1/bookings with `recurrence` (one owner): the series' claim operation. */
export function seriesBookingClaim(actor: AgentActor, input: SeriesBookingInput, now: Date, idempotencyKey: string | null): ClaimOperation<SeriesView> {
  assertBookingSpan(input.start, input.end);
  // The rule is expanded, and checked, in the owner's zone, read under the lock (runSeries).
  return {
    queueKey: ownerQueueKey(actor.customerId, input.ownerEmail),
    action: 'booking.create',
    run: (tx) => runSeries(tx, actor, input, now, idempotencyKey),
  };
}

async function runSeries(tx: Tx, actor: AgentActor, input: SeriesBookingInput, now: Date, idempotencyKey: string | null): Promise<Answer<SeriesView>> {
  const owner = { customerId: actor.customerId, email: input.ownerEmail.trim().toLowerCase() };
  // One pipeline: the owner lock first, then under it the due holds expired, a claim made with this key, the approval rules.
  const [target, , made, held] = await Promise.all([
    loadTarget(tx, actor.customerId, input, true),
    expireDueHolds(tx, owner, now),
    claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now),
    approvalRequired(tx, { customerId: actor.customerId, ownerEmail: input.ownerEmail, agentId: actor.agentId, meetingClass: input.meetingClass }),
  ]);
  const occurrences = occurrencesOf(input, target.owner.timeZone);
  const min = minimumOf(input, occurrences.length);
  const view = (row: typeof claims.$inferSelect, extra?: Pick<Parameters<typeof bookingView>[1], 'preemptedIds' | 'preemptedClaims' | 'warnings' | 'video'>) =>
    bookingView(row, { ownerEmail: target.owner.email, timeZone: target.owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, warnings: rulesWarnings(target.owner), ...extra });
  const answer = (seriesId: string, bookings: { index: number; view: BookingView }[], refused: RefusedOccurrence[]): SeriesView => ({
    ...bookings[0].view,
    series: {
      series_id: seriesId,
      recurrence: input.recurrence,
      occurrences_requested: occurrences.length,
      min_occurrences: min,
      bookings: bookings.map(({ index, view: b }) => ({ index, booking_id: b.booking_id, start: b.start, end: b.end, start_local: b.start_local, end_local: b.end_local })),
      refused_occurrences: refused,
    },
  });
  // The same key again after the effect committed: the series as it stands (docs/api.md "Idempotency").
  if (made?.seriesId) {
    const rows = await seriesRows(tx, made.seriesId);
    const indexOf = new Map(occurrences.map((o) => [o.start, o.index]));
    return { ok: true, value: answer(made.seriesId, rows.map((r, i) => ({ index: indexOf.get(r.startAt.getTime()) ?? i, view: view(r) })), []) };
  }
  if (held) throw new DomainError('APPROVAL_REQUIRED', `${target.owner.email} requires approval for this booking, and a recurring series cannot wait for it yet: book the occurrences one by one`);
  const arounds = await Promise.all(occurrences.map((o) => loadClaims(tx, target.owner.id, new Date(o.start - ARBITRATION_MARGIN_MS), new Date(o.end + ARBITRATION_MARGIN_MS), now)));
  const policy = requestPolicy(actor, target);
  const seriesId = newId(now.getTime());
  const ids = occurrences.map(() => newId(now.getTime()));
  const verdicts = decideAll(occurrences, arounds, policy, { target, now, ids, agentId: actor.agentId });
  const first = verdicts[0].decision;
  // The series starts in the past: refused as a single booking is (every later occurrence follows it).
  if (first.outcome === 'past_time') return { ok: false, error: new DomainError('PAST_TIME', 'The requested start is in the past') };
  const audit = (o: SeriesOccurrence) => ({
    customerId: actor.customerId,
    agentId: actor.agentId,
    actor: { kind: 'agent' as const, agentId: actor.agentId },
    ownerId: target.owner.id,
    ownerEmail: target.owner.email,
    action: 'booking.create' as const,
    meetingClass: target.meetingClass.name,
    start: new Date(o.start),
    end: new Date(o.end),
    holdId: null,
    idempotencyKey,
    at: now,
  });
  const refusedOnes = verdicts.filter((v) => v.decision.outcome !== 'accept');
  const refused = refusedOnes.map((v) => {
    const d = v.decision as Exclude<Decision, { outcome: 'accept' }>;
    const row = rejectionAudit(audit(v.occurrence), d);
    row.details = { ...row.details, series_id: seriesId, occurrence: v.occurrence.index };
    defer(tx, writeAudit(tx, row));
    return refusedOccurrence(v, decisionError(d, v.around, { target, policy, start: v.occurrence.start, end: v.occurrence.end, now: now.getTime() }), target.owner.timeZone);
  });
  if (occurrences.length - refused.length < min) {
    const reason = refused[0].reason ?? refused[0].code;
    const message = `${refused.length} of ${occurrences.length} occurrences of the series were refused and at least ${min} must be booked: nothing was booked (see refused_occurrences)`;
    return { ok: false, error: new DomainError('ARBITRATION_REJECTED', message, { reason, extra: { alternatives: [], conflicts: [], refused_occurrences: refused } }) };
  }
  const preemptedSoFar = new Set<string>();
  const bookings: { index: number; view: BookingView }[] = [];
  for (const [i, v] of verdicts.entries()) {
    if (v.decision.outcome !== 'accept') continue;
    const claim = { ...newBooking({ actor, ownerId: target.owner.id, calendarId: target.calendar.id, meetingClassId: target.meetingClass.id, start: new Date(v.occurrence.start), end: new Date(v.occurrence.end), now, idempotencyKey }, input), id: ids[i], seriesId };
    const auditDetails = { series_id: seriesId, occurrence: v.occurrence.index };
    const r = await runClaim(tx, { action: 'booking.create', target, policy, claim, now, around: v.around, auditDetails, preemptedSoFar, video: input.video });
    // The pure pass and the decision saw the same claims; a difference rolls the whole series back rather than commit part of it.
    if (!r.ok) throw new DomainError('ARBITRATION_REJECTED', 'The series could not be decided consistently; nothing was booked, try again', { reason: 'NO_CAPACITY', extra: { alternatives: [] } });
    bookings.push({ index: v.occurrence.index, view: view(r.row, { preemptedIds: r.preemptedIds, preemptedClaims: r.preemptedClaims, warnings: r.warnings, video: r.video }) });
  }
  return { ok: true, value: answer(seriesId, bookings, refused) };
}

/** A refused occurrence as answered: where it lies and the refusal's code, message, reason and extras (alternatives, conflicts, next_available). */
function refusedOccurrence(v: Verdict, error: DomainError, timeZone: string): RefusedOccurrence {
  const span = localSpan(new Date(v.occurrence.start), new Date(v.occurrence.end), timeZone);
  return { index: v.occurrence.index, ...span, code: error.code, message: error.message, ...(error.reason ? { reason: error.reason } : {}), ...error.extra };
}

/** The occurrences of a series, in start order. */
function seriesRows(db: Executor, seriesId: string) {
  return db.select().from(claims).where(eq(claims.seriesId, seriesId)).orderBy(asc(claims.startAt));
}
