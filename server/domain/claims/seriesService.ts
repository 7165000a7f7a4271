import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { claims, claimSeries } from '@/db/schema';
import type { AgentActor } from '../access';
import { DomainError, invalidField } from '../errors';
import { newId } from '../ids';
import { recordWebhookEvent } from '../webhooks/outbox';
import { approvalRequired } from '../approvals/policyService';
import { localSpan } from '../scheduling';
import { expandSeries, SeriesError, type SeriesOccurrence } from '../scheduling/series';
import { runClaim } from './claimDecision';
import { ownerQueueKey, type Answer, type ClaimOperation } from './claimRunner';
import { claimMadeWithKey, DEFAULT_HOLD_TTL_SECONDS, type NewClaim } from './claimStore';
import { ARBITRATION_MARGIN_MS, expireDueHolds, loadClaims, loadTarget, requestPolicy, rulesWarnings, type ClaimRow, type SchedulingTarget } from './claimTarget';
import { newBooking, type BookingInput } from './bookingService';
import { decideAll, inconsistentSeries, occurrenceClaim, refusedOccurrences, seriesItem, seriesRefusal, type RefusedOccurrence, type SeriesItem } from './seriesDecision';
import { bookingView, holdView, type BookingView, type HoldView } from './views';
import { newHold } from './windowHold';
import { assertBookingSpan } from './windows';

/**
 * A recurring series made directly (docs/arbitration.md "Recurring series"): a claim of N
 * occurrences on the one claim path, of bookings (POST /v1/bookings) or of candidate holds
 * (POST /v1/holds), one function for both. The owner's queue and lock, one transaction: every
 * occurrence arbitrated by the same arbiter as a single claim (each seeing the occurrences
 * accepted before it), then either as many committed as allowed (all of them, or with
 * `min_occurrences` at least that many) through runClaim, or nothing and one refusal naming each
 * refused occurrence with its reason and alternatives.
 */

type SeriesKind = 'booking' | 'hold';
/** A series' first occurrence (`start`, `end`), its rule and minimum; a hold series' TTL. */
export type SeriesInput = BookingInput & { recurrence: string; minOccurrences?: number; ttlSeconds?: number };

/** The series beside its first occurrence (the answer is that occurrence's booking or hold). */
type SeriesSummary = { series_id: string; recurrence: string; occurrences_requested: number; min_occurrences: number; refused_occurrences: RefusedOccurrence[] };
export type SeriesView = BookingView & { series: SeriesSummary & { bookings: SeriesItem[] } };
export type HoldSeriesView = HoldView & { series: SeriesSummary & { holds: SeriesItem[] } };
type ViewOf<K extends SeriesKind> = K extends 'booking' ? SeriesView : HoldSeriesView;

/** The occurrences of the rule from start in `timeZone`; a rule outside the subset is a 400 on `recurrence`. */
export function occurrencesOf(input: Pick<SeriesInput, 'recurrence' | 'start' | 'end'>, timeZone: string): SeriesOccurrence[] {
  try {
    return expandSeries({ rrule: input.recurrence, start: input.start.getTime(), end: input.end.getTime(), timeZone });
  } catch (err) {
    if (err instanceof SeriesError) throw invalidField('recurrence', err.message);
    throw err;
  }
}

/** min_occurrences checked against the number of occurrences (default: all of them). */
export function minimumOf(input: Pick<SeriesInput, 'minOccurrences'>, n: number): number {
  const min = input.minOccurrences ?? n;
  if (min < 1 || min > n) throw invalidField('min_occurrences', `must be between 1 and the series' ${n} occurrences`);
  return min;
}

/** POST /v1/bookings with `recurrence` (one owner): the series' claim operation. */
export function seriesBookingClaim(actor: AgentActor, input: SeriesInput, now: Date, idempotencyKey: string | null): ClaimOperation<SeriesView> {
  return seriesClaim('booking', actor, input, now, idempotencyKey);
}

/** POST /v1/holds with `recurrence` (a candidate hold of one owner): every occurrence a hold with the same series_id and TTL. */
export function seriesHoldClaim(actor: AgentActor, input: SeriesInput, now: Date, idempotencyKey: string | null): ClaimOperation<HoldSeriesView> {
  return seriesClaim('hold', actor, input, now, idempotencyKey);
}

function seriesClaim<K extends SeriesKind>(kind: K, actor: AgentActor, input: SeriesInput, now: Date, idempotencyKey: string | null): ClaimOperation<ViewOf<K>> {
  assertBookingSpan(input.start, input.end, kind === 'hold' ? 'candidate' : undefined, kind === 'hold' ? 'candidate' : undefined);
  // The rule is expanded, and checked, in the owner's zone, read under the lock (runSeries).
  return {
    queueKey: ownerQueueKey(actor.customerId, input.ownerEmail),
    action: `${kind}.create`,
    run: (tx) => runSeries(tx, kind, actor, input, now, idempotencyKey) as Promise<Answer<ViewOf<K>>>,
  };
}

async function runSeries(tx: Tx, kind: SeriesKind, actor: AgentActor, input: SeriesInput, now: Date, idempotencyKey: string | null): Promise<Answer<SeriesView | HoldSeriesView>> {
  const owner = { customerId: actor.customerId, email: input.ownerEmail.trim().toLowerCase() };
  // One pipeline: the owner lock first, then under it the due holds expired, a claim made with this key, the approval rules (a booking's).
  const [target, , made, held] = await Promise.all([
    loadTarget(tx, actor.customerId, input, true),
    expireDueHolds(tx, owner, now),
    claimMadeWithKey(tx, actor.agentId, idempotencyKey, kind, now),
    kind === 'booking' ? approvalRequired(tx, { customerId: actor.customerId, ownerEmail: input.ownerEmail, agentId: actor.agentId, meetingClass: input.meetingClass }) : false,
  ]);
  const occurrences = occurrencesOf(input, target.owner.timeZone);
  const min = minimumOf(input, occurrences.length);
  const view = viewer(kind, target, now);
  const answer = (seriesId: string, done: { index: number; view: BookingView | HoldView; row: ClaimRow }[], refused: RefusedOccurrence[]) => ({
    ...done[0].view,
    series: {
      series_id: seriesId,
      recurrence: input.recurrence,
      occurrences_requested: occurrences.length,
      min_occurrences: min,
      [kind === 'hold' ? 'holds' : 'bookings']: done.map(({ index, row }) => seriesItem(kind, row.id, localSpan(row.startAt, row.endAt, target.owner.timeZone), index)),
      refused_occurrences: refused,
    },
  });
  // The same key again after the effect committed: the series as it stands (docs/api.md "Idempotency").
  if (made?.seriesId) {
    const rows = await seriesRows(tx, made.seriesId, kind);
    const indexOf = new Map(occurrences.map((o) => [o.start, o.index]));
    return { ok: true, value: answer(made.seriesId, rows.map((row, i) => ({ index: indexOf.get(row.startAt.getTime()) ?? i, view: view(row), row })), []) as SeriesView };
  }
  if (held) throw new DomainError('APPROVAL_REQUIRED', `${target.owner.email} requires approval for this booking, and a recurring series cannot wait for it yet: book the occurrences one by one`);
  const arounds = await Promise.all(occurrences.map((o) => loadClaims(tx, target.owner.id, new Date(o.start - ARBITRATION_MARGIN_MS), new Date(o.end + ARBITRATION_MARGIN_MS), now)));
  const policy = requestPolicy(actor, target);
  const seriesId = newId(now.getTime());
  const ttlMs = (input.ttlSeconds ?? DEFAULT_HOLD_TTL_SECONDS) * 1000;
  const claimOf = (o: SeriesOccurrence): NewClaim => {
    const start = new Date(o.start);
    const end = new Date(o.end);
    const base =
      kind === 'hold'
        ? newHold({ actor, target, scope: 'candidate', ttlMs, now, idempotencyKey, stamped: true }, start, end, (o.end - o.start) / 60_000)
        : newBooking({ actor, ownerId: target.owner.id, calendarId: target.calendar.id, meetingClassId: target.meetingClass.id, start, end, now, idempotencyKey }, input);
    return { ...base, seriesId };
  };
  const planned = occurrences.map(claimOf);
  const verdicts = decideAll(occurrences, arounds, policy, { target, now, accepted: (o, i) => occurrenceClaim(o, planned[i].id, kind, policy, actor.agentId, target.meetingClass.name) });
  // The series starts in the past: refused as a single claim is (every later occurrence follows it).
  if (verdicts[0].decision.outcome === 'past_time') return { ok: false, error: new DomainError('PAST_TIME', 'The requested start is in the past') };
  const action = kind === 'hold' ? 'hold.create' : 'booking.create';
  const refused = refusedOccurrences(tx, verdicts, { actor, target, policy, now, action, seriesId, idempotencyKey });
  if (occurrences.length - refused.length < min) {
    const message = `${refused.length} of ${occurrences.length} occurrences of the series were refused and at least ${min} must be ${kind === 'hold' ? 'held' : 'booked'}: nothing was ${kind === 'hold' ? 'held' : 'booked'} (see refused_occurrences)`;
    return { ok: false, error: seriesRefusal(refused, message) };
  }
  const preemptedSoFar = new Set<string>();
  const done: { index: number; view: BookingView | HoldView; row: ClaimRow }[] = [];
  for (const [i, v] of verdicts.entries()) {
    if (v.decision.outcome !== 'accept') continue;
    const auditDetails = { series_id: seriesId, occurrence: v.occurrence.index };
    const r = await runClaim(tx, { action, target, policy, claim: planned[i], now, around: v.around, auditDetails, preemptedSoFar, video: kind === 'booking' ? input.video : undefined });
    // The pure pass and the decision saw the same claims; a difference rolls the whole series back rather than commit part of it.
    if (!r.ok) throw inconsistentSeries();
    done.push({ index: v.occurrence.index, row: r.row, view: view(r.row, { preemptedIds: r.preemptedIds, preemptedClaims: r.preemptedClaims, warnings: r.warnings, video: r.video }) });
  }
  // The series as asked, kept for its one invitation once booked (docs/calendars.md "Series invitations"); a booked series also announces series.created beside each occurrence's booking.created.
  const kept = { id: seriesId, customerId: actor.customerId, recurrence: input.recurrence, timeZone: target.owner.timeZone, first: occurrences[0], now };
  if (kind === 'booking') announceSeries(tx, actor, kept, { ownerEmail: target.owner.email, meetingClass: target.meetingClass.name, requested: occurrences.length, min, bookingIds: done.map((b) => b.row.id), refused });
  else keepSeries(tx, { ...kept, rule: ruleOf(input.recurrence), first: { start: new Date(occurrences[0].start), end: new Date(occurrences[0].end) } });
  return { ok: true, value: answer(seriesId, done, refused) as SeriesView };
}

type Extra = Pick<Parameters<typeof bookingView>[1], 'preemptedIds' | 'preemptedClaims' | 'warnings' | 'video'>;

/** An occurrence's answer: its booking, or its hold. */
function viewer(kind: SeriesKind, target: SchedulingTarget, now: Date) {
  const common = { ownerEmail: target.owner.email, timeZone: target.owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type };
  return (row: ClaimRow, extra?: Extra): BookingView | HoldView =>
    kind === 'hold' ? holdView(row, { ...common, now, warnings: extra?.warnings ?? rulesWarnings(target.owner) }) : bookingView(row, { ...common, warnings: rulesWarnings(target.owner), ...extra });
}

/** The occurrences of a series (its holds, or its bookings), in start order. */
function seriesRows(db: Executor, seriesId: string, kind: SeriesKind) {
  return db.select().from(claims).where(and(eq(claims.seriesId, seriesId), eq(claims.kind, kind), isNull(claims.partOfHoldId))).orderBy(asc(claims.startAt));
}

/**
 * The series as asked, kept beside its occurrences in the transaction that claims them
 * (claim_series): its one invitation (docs/calendars.md "Series invitations") and the dashboard's
 * words for it read the rule from there. Every path that books a series calls it.
 */
export function keepSeries(tx: Executor, s: { id: string; customerId: string; rule: string; timeZone: string; first: { start: Date; end: Date }; now: Date }): void {
  defer(tx, tx.insert(claimSeries).values({ id: s.id, customerId: s.customerId, recurrence: s.rule, timeZone: s.timeZone, firstStart: s.first.start, firstEnd: s.first.end, createdAt: s.now }));
}

/** The rule as kept and announced: without an RRULE: prefix. */
const ruleOf = (recurrence: string) => recurrence.trim().replace(/^RRULE:/i, '');

/**
 * A booked series kept (keepSeries) and announced: `series.created` to its agent beside each
 * occurrence's booking.created (docs/webhooks.md). Every path that books a series calls it: one
 * owner (here), a group (groupSeries.ts), a pool (pools/poolSeries.ts).
 */
export function announceSeries(
  tx: Executor,
  actor: AgentActor,
  s: { id: string; customerId: string; recurrence: string; timeZone: string; first: { start: number; end: number }; now: Date },
  booked: { ownerEmail: string; meetingClass: string; requested: number; min: number; bookingIds: string[]; refused: readonly RefusedOccurrence[] },
): void {
  const rule = ruleOf(s.recurrence);
  keepSeries(tx, { id: s.id, customerId: s.customerId, rule, timeZone: s.timeZone, first: { start: new Date(s.first.start), end: new Date(s.first.end) }, now: s.now });
  const created = {
    series_id: s.id,
    owner_email: booked.ownerEmail,
    meeting_class: booked.meetingClass,
    recurrence: rule,
    occurrences_requested: booked.requested,
    min_occurrences: booked.min,
    booking_ids: booked.bookingIds,
    refused_occurrences: booked.refused.map((r) => ({ index: r.index, start: r.start, end: r.end, code: r.code, ...(r.reason ? { reason: r.reason } : {}) })),
  };
  defer(tx, recordWebhookEvent(tx, { agentId: actor.agentId, kind: 'series.created', data: created, now: s.now, actor: { kind: 'agent', agentId: actor.agentId } }));
}
