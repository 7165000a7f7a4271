import { asc, inArray } from 'drizzle-orm';
import type { Executor, Tx } from '@/db/client';
import { lockHoldsForConfirm } from '@/db/hot/holds';
import { claims } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import { approvalForHold } from '../approvals/policyService';
import { DomainError } from '../errors';
import { localSpan } from '../scheduling';
import { shiftSeries, type SeriesOccurrence } from '../scheduling/series';
import { runClaim } from './claimDecision';
import { ownerQueueKey, type ClaimOperation } from './claimRunner';
import { ARBITRATION_MARGIN_MS, loadClaims, requestPolicy, rulesWarnings, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { newBooking } from './bookingService';
import { confirmTarget, type ConfirmInput } from './holdTarget';
import { assertMovable, moverActor, moverPolicy, type BookingOwner, type Mover, type RescheduleInput } from './moveRules';
import { lockBooking } from './rescheduleService';
import { seriesNamedBy, type SeriesScope } from './seriesCancel';
import { decideAll, inconsistentSeries, occurrenceClaim, refusedOccurrences, seriesItem, seriesRefusal, type RefusedOccurrence, type SeriesItem, type Verdict } from './seriesDecision';
import { bookingView, holdStatus, type BookingView } from './views';
import { assertBookingSpan } from './windows';

/**
 * Confirm and reschedule of a recurring series with a scope (docs/arbitration.md "Recurring
 * series"): `following` (the occurrence named and every later one) or `series` (all of them).
 * The occurrences are one claim of N members on the one claim path: the owner's queue and lock,
 * one transaction, a pure pass deciding every occurrence (seriesDecision.ts), then each applied
 * through runClaim. All succeed or none: one refusal and nothing changes, the 409 naming each
 * refused occurrence. Release and cancel with a scope: groupLifecycle.ts.
 */

type Scope = Exclude<SeriesScope, 'occurrence'>;

/** The answer of a scoped confirm or reschedule: the occurrence named, and every occurrence the call booked or moved. */
export type SeriesActView = BookingView & { series: { series_id: string; bookings: SeriesItem[]; refused_occurrences: RefusedOccurrence[] } };

/** The series' claims the scope names, locked (the owner row is locked first by the caller), in start order. */
async function lockScope(tx: Executor, ids: readonly string[]): Promise<ClaimRow[]> {
  return tx.select().from(claims).where(inArray(claims.id, [...ids])).orderBy(asc(claims.startAt)).for('update');
}

const occurrencesOf = (spans: readonly { start: number; end: number }[]): SeriesOccurrence[] => spans.map((s, index) => ({ ...s, index }));

const aroundEach = (tx: Executor, target: SchedulingTarget, spans: readonly { start: number; end: number }[], now: Date) =>
  Promise.all(spans.map((s) => loadClaims(tx, target.owner.id, new Date(s.start - ARBITRATION_MARGIN_MS), new Date(s.end + ARBITRATION_MARGIN_MS), now)));

/**
 * POST /v1/bookings/{id}/confirm with scope: the series' active holds in scope promoted together
 * (those already promoted, released, preempted or expired are left as they are), each at its own
 * held slot with the confirm's class and details. The hold named must be active, and `start`/`end`
 * its own slot, as for a single confirm.
 */
export async function seriesConfirmClaim(db: Executor, actor: AgentActor, holdId: string, scope: Scope, input: ConfirmInput, now: Date, idempotencyKey: string | null): Promise<ClaimOperation<SeriesActView>> {
  const named = await seriesNamedBy(db, actor, holdId, scope, 'hold');
  if (!named) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
  return {
    queueKey: ownerQueueKey(actor.customerId, named.members[0].ownerEmail),
    action: 'hold.confirm',
    run: async (tx) => {
      const [locked] = await lockHoldsForConfirm(tx, holdId, actor.customerId, input.meetingClass);
      if (!locked) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
      assertOwnerInScope(actor, locked.owner.email);
      const { target } = await confirmTarget(tx, actor, locked, input, now);
      const approval = await approvalForHold(tx, { customerId: actor.customerId, holdId, agentId: actor.agentId, meetingClass: input.meetingClass });
      if (approval.required || approval.proposalId) throw new DomainError('APPROVAL_REQUIRED', `${target.owner.email} requires approval for this booking, and a series cannot wait for it yet: confirm the occurrences one by one`);
      const holds = (await lockScope(tx, named.members.map((m) => m.id))).filter((h) => holdStatus(h, now) === 'active');
      const spans = holds.map((h) => ({ start: h.startAt.getTime(), end: h.endAt.getTime() }));
      const policy = requestPolicy(actor, target);
      const seriesId = locked.hold.seriesId!;
      // Each hold is already among the claims around the others, and its booking counts the same minutes: nothing to add.
      const verdicts = decideAll(occurrencesOf(spans), await aroundEach(tx, target, spans, now), policy, { target, now, exclude: (i) => [holds[i].id] });
      const refused = refusedOccurrences(tx, verdicts, { actor, target, policy, now, action: 'booking.confirm', seriesId, idempotencyKey, claimOf: (v) => ({ holdId: holds[v.occurrence.index].id }) });
      if (refused.length) return { ok: false, error: seriesRefusal(refused, `${refused.length} of ${holds.length} occurrences could not be confirmed: nothing was confirmed (see refused_occurrences)`) };
      const preemptedSoFar = new Set<string>();
      const booked: { row: ClaimRow; preemptedIds: string[]; preemptedClaims: { id: string; kind: 'hold' | 'booking' }[]; warnings: string[] }[] = [];
      for (const [i, h] of holds.entries()) {
        const claim = { ...newBooking({ actor, ownerId: target.owner.id, calendarId: target.calendar.id, meetingClassId: target.meetingClass.id, start: h.startAt, end: h.endAt, now, idempotencyKey, holdId: h.id }, input), seriesId };
        const r = await runClaim(tx, { action: 'booking.confirm', target, policy, claim, now, around: verdicts[i].around, preemptedSoFar, video: input.video, auditDetails: { series_id: seriesId, scope } });
        if (!r.ok) throw inconsistentSeries();
        booked.push(r);
      }
      const mine = booked.find((b) => b.row.holdId === holdId)!;
      return { ok: true, value: actAnswer(target, seriesId, mine, booked.map((b) => b.row)) };
    },
  };
}

/**
 * POST /v1/bookings/{id}/reschedule with scope: the named occurrence moves to `start`/`end` and
 * every confirmed occurrence in scope by the same wall-clock shift in the owner's zone
 * (shiftSeries: same days and local time, DST-correct), each taking the new duration. Every
 * occurrence is arbitrated at its new time with the moving ones set aside at their old times.
 */
export async function seriesRescheduleClaim(db: Executor, mover: Mover & { kind: 'agent' }, owner: BookingOwner, bookingId: string, scope: Scope, input: RescheduleInput, now: Date, idempotencyKey: string | null): Promise<ClaimOperation<SeriesActView>> {
  assertBookingSpan(input.start, input.end);
  const named = await seriesNamedBy(db, mover.actor, bookingId, scope, 'booking');
  if (!named) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  const { actor } = mover;
  return {
    queueKey: ownerQueueKey(owner.customerId, owner.email),
    action: 'booking.reschedule',
    run: async (tx) => {
      const { row, target } = await lockBooking(tx, mover, owner, bookingId);
      const rows = (await lockScope(tx, named.members.map((m) => m.id))).filter((b) => b.status === 'confirmed');
      for (const b of rows) assertMovable(mover, b);
      const spans = shiftSeries(target.owner.timeZone, { from: row.startAt.getTime(), to: { start: input.start.getTime(), end: input.end.getTime() } }, rows.map((b) => ({ start: b.startAt.getTime(), end: b.endAt.getTime() })));
      const policy = moverPolicy(mover, target, row);
      const seriesId = row.seriesId!;
      const moving = new Set(rows.map((b) => b.id));
      // The occurrences that move are not around their new times at their old ones; the new times of those decided before are.
      const arounds = (await aroundEach(tx, target, spans, now)).map((list) => list.filter((c) => !moving.has(c.id)));
      const verdicts = decideAll(occurrencesOf(spans), arounds, policy, { target, now, accepted: (o, i) => occurrenceClaim(o, rows[i].id, 'booking', policy, rows[i].agentId, target.meetingClass.name) });
      const refused = refusedOccurrences(tx, verdicts, { actor, target, policy, now, action: 'booking.reschedule', seriesId, idempotencyKey, claimOf: (v) => ({ bookingId: rows[v.occurrence.index].id }) });
      if (refused.length) return { ok: false, error: seriesRefusal(refused, `${refused.length} of ${rows.length} occurrences cannot move: nothing was moved (see refused_occurrences)`) };
      // Moved later: the last first (and earlier: the first first), so no row passes over one yet to move (the exclusion constraint judges each UPDATE).
      const order = [...verdicts.keys()];
      if (input.start > row.startAt) order.reverse();
      const preemptedSoFar = new Set<string>();
      const moved = new Map<number, { row: ClaimRow; preemptedIds: string[]; preemptedClaims: { id: string; kind: 'hold' | 'booking' }[]; warnings: string[] }>();
      for (const i of order) moved.set(i, await moveOne(tx, { mover, target, policy, from: rows[i], verdict: verdicts[i], input, now, idempotencyKey, preemptedSoFar, scope }));
      const all = [...order].sort((a, b) => a - b).map((i) => moved.get(i)!);
      return { ok: true, value: actAnswer(target, seriesId, all.find((m) => m.row.id === row.id)!, all.map((m) => m.row)) };
    },
  };
}

type MoveStep = {
  mover: Mover & { kind: 'agent' };
  target: SchedulingTarget;
  policy: ReturnType<typeof moverPolicy>;
  from: ClaimRow;
  verdict: Verdict;
  input: RescheduleInput;
  now: Date;
  idempotencyKey: string | null;
  preemptedSoFar: Set<string>;
  scope: Scope;
};

/** One occurrence moved through runClaim (its `moves`), on the claims its verdict saw. */
async function moveOne(tx: Tx, s: MoveStep) {
  const { from, target } = s;
  const claim = { ...from, startAt: new Date(s.verdict.occurrence.start), endAt: new Date(s.verdict.occurrence.end), holdId: null, idempotencyKey: s.idempotencyKey, agentId: s.mover.actor.agentId };
  const r = await runClaim(tx, {
    action: 'booking.reschedule',
    target,
    policy: s.policy,
    around: s.verdict.around as LoadedClaim[],
    actor: moverActor(s.mover),
    now: s.now,
    claim,
    moves: { from, reason: s.input.reason ?? null, timeZone: target.owner.timeZone },
    auditDetails: { series_id: from.seriesId, scope: s.scope },
    preemptedSoFar: s.preemptedSoFar,
    preemptionReason: `moved aside by "${from.title ?? 'a meeting'}" (${target.meetingClass.name}), rescheduled to this time`,
  });
  if (!r.ok) throw inconsistentSeries();
  return r;
}

/** The occurrence named as a booking, with every occurrence the call booked or moved. */
function actAnswer(target: SchedulingTarget, seriesId: string, mine: { row: ClaimRow; preemptedIds: string[]; preemptedClaims: { id: string; kind: 'hold' | 'booking' }[]; warnings: string[] }, rows: readonly ClaimRow[]): SeriesActView {
  const { owner } = target;
  const view = bookingView(mine.row, { ownerEmail: owner.email, timeZone: owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, preemptedIds: mine.preemptedIds, preemptedClaims: mine.preemptedClaims, warnings: mine.warnings.length ? mine.warnings : rulesWarnings(owner) });
  return { ...view, series: { series_id: seriesId, bookings: rows.map((r) => seriesItem('booking', r.id, localSpan(r.startAt, r.endAt, owner.timeZone))), refused_occurrences: [] } };
}
