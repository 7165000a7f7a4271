import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { claims } from '@/db/schema';
import type { AgentActor } from '../access';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { localSpan } from '../scheduling';
import { groupRunnerFields, type Answer, type ClaimOperation } from './claimRunner';
import { claimMadeWithKey, type NewClaim } from './claimStore';
import { ARBITRATION_MARGIN_MS, expireDueHolds, loadClaims, loadTargets, requestPolicy, type SchedulingTarget } from './claimTarget';
import { newBooking } from './bookingService';
import { applyBookings, groupBookingView, type GroupBookingInput } from './groupService';
import { groupOwnerEmails } from './groupMembers';
import { decideAll, inconsistentSeries, occurrenceClaim, refusedOccurrences, seriesItem, seriesRefusal, type RefusedOccurrence, type SeriesItem, type Verdict } from './seriesDecision';
import { announceSeries, minimumOf, occurrencesOf, type SeriesView } from './seriesService';
import type { BookingView } from './views';
import { assertBookingSpan } from './windows';

/**
 * A group series (docs/arbitration.md "Recurring series", docs/groups.md): POST /v1/bookings with
 * `owner_emails` and `recurrence`. Every occurrence is a group booking of all the owners (its own
 * group_id, every member carrying the series_id), each owner's member arbitrated with that owner's
 * rules as a group booking is; an occurrence counts only when every owner accepts it. All owners'
 * queues and row locks (owner-id order), one transaction: all occurrences committed through
 * runClaim (applyBookings), or with `min_occurrences` at least that many, or nothing and one
 * refusal listing each refused occurrence with each refusing owner's reason.
 */

export type GroupSeriesInput = GroupBookingInput & { recurrence: string; minOccurrences?: number };

/** How many times the pure pass is narrowed to the occurrences every owner accepts (it settles in one or two). */
const MAX_PASSES = 4;

export function groupSeriesBookingClaim(actor: AgentActor, input: GroupSeriesInput, now: Date, idempotencyKey: string | null): ClaimOperation<SeriesView> {
  assertBookingSpan(input.start, input.end);
  const emails = groupOwnerEmails(actor, input.ownerEmails);
  const normalized = { ...input, ownerEmails: emails };
  return { ...groupRunnerFields(actor, emails), action: 'booking.create', run: (tx) => runGroupSeries(tx, actor, normalized, now, idempotencyKey) };
}

type OwnerPass = { target: SchedulingTarget; verdicts: Verdict[] };

async function runGroupSeries(tx: Tx, actor: AgentActor, input: GroupSeriesInput, now: Date, idempotencyKey: string | null): Promise<Answer<SeriesView>> {
  // Every owner's row locked in owner-id order (loadTargets), then their due holds expired.
  const targets = await loadTargets(tx, actor.customerId, input, true);
  const [made] = await Promise.all([claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now), ...targets.map((t) => expireDueHolds(tx, t.owner, now))]);
  // The rule is read in the first owner's zone (the organizer's).
  const lead = targets[0];
  const occurrences = occurrencesOf(input, lead.owner.timeZone);
  const min = minimumOf(input, occurrences.length);
  const summary = (seriesId: string, firsts: BookingView[], refused: RefusedOccurrence[], indexes: number[]) => ({
    series_id: seriesId,
    recurrence: input.recurrence,
    occurrences_requested: occurrences.length,
    min_occurrences: min,
    bookings: firsts.map((b, i): SeriesItem => seriesItem('booking', b.booking_id, localSpan(new Date(b.start), new Date(b.end), lead.owner.timeZone), indexes[i])),
    refused_occurrences: refused,
  });
  // The same key again after the effect committed: the series as it stands (the first owner's members).
  if (made?.seriesId) {
    const rows = await tx.select().from(claims).where(and(eq(claims.seriesId, made.seriesId), eq(claims.ownerId, lead.owner.id), eq(claims.kind, 'booking'), isNull(claims.partOfHoldId))).orderBy(asc(claims.startAt));
    const indexOf = new Map(occurrences.map((o) => [o.start, o.index]));
    const firsts = await Promise.all(rows.map((r) => groupBookingView(tx, actor, r.id, now)));
    return { ok: true, value: { ...firsts[0], series: summary(made.seriesId, firsts, [], rows.map((r, i) => indexOf.get(r.startAt.getTime()) ?? i)) } };
  }
  const arounds = await Promise.all(targets.map((t) => Promise.all(occurrences.map((o) => loadClaims(tx, t.owner.id, new Date(o.start - ARBITRATION_MARGIN_MS), new Date(o.end + ARBITRATION_MARGIN_MS), now)))));
  const seriesId = newId(now.getTime());
  const policies = targets.map((t) => requestPolicy(actor, t));
  // Each owner's pure pass over the occurrences every owner still accepts, narrowed until it settles:
  // an occurrence one owner refuses adds nothing (minutes, buffers) to the others' later occurrences.
  let kept = occurrences.map((_, i) => i);
  let passes: OwnerPass[] = [];
  const firstRefusal = new Map<number, OwnerPass[]>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const keptOccurrences = kept.map((i) => occurrences[i]);
    passes = targets.map((target, t) => ({
      target,
      verdicts: decideAll(keptOccurrences, kept.map((i) => arounds[t][i]), policies[t], {
        target,
        now,
        accepted: (o) => occurrenceClaim(o, `${seriesId}:${t}:${o.index}`, 'booking', policies[t], actor.agentId, target.meetingClass.name),
      }),
    }));
    const refusedHere = kept.filter((_, k) => passes.some((p) => p.verdicts[k].decision.outcome !== 'accept'));
    for (const i of refusedHere) {
      const k = kept.indexOf(i);
      if (!firstRefusal.has(i)) firstRefusal.set(i, passes.filter((p) => p.verdicts[k].decision.outcome !== 'accept').map((p) => ({ target: p.target, verdicts: [p.verdicts[k]] })));
    }
    if (!refusedHere.length) break;
    kept = kept.filter((i) => !refusedHere.includes(i));
  }
  if ([...firstRefusal.values()].some((ps) => ps.some((p) => p.verdicts[0].occurrence.index === 0 && p.verdicts[0].decision.outcome === 'past_time'))) {
    return { ok: false, error: new DomainError('PAST_TIME', 'The requested start is in the past') };
  }
  const refused = groupRefusedOccurrences(tx, actor, firstRefusal, seriesId, idempotencyKey, now);
  if (kept.length < min || passes.some((p) => p.verdicts.some((v) => v.decision.outcome !== 'accept'))) {
    const message = `${refused.length} of ${occurrences.length} occurrences of the group series were refused by at least one owner and at least ${min} must be booked: nothing was booked (see refused_occurrences)`;
    return { ok: false, error: seriesRefusal(refused, message) };
  }
  const firsts: BookingView[] = [];
  for (const [k, i] of kept.entries()) {
    const o = occurrences[i];
    const groupId = newId(now.getTime());
    const plans = passes.map((p, t) => ({ target: p.target, policy: policies[t], around: p.verdicts[k].around }));
    const claimsByOwner = new Map<string, NewClaim>(
      plans.map((p) => [
        p.target.owner.id,
        { ...newBooking({ actor, ownerId: p.target.owner.id, calendarId: p.target.calendar.id, meetingClassId: p.target.meetingClass.id, start: new Date(o.start), end: new Date(o.end), now, idempotencyKey }, input), groupId, seriesId },
      ]),
    );
    try {
      const r = await applyBookings(tx, plans, claimsByOwner, 'booking.create', now, targets, undefined, { auditDetails: { series_id: seriesId, occurrence: o.index } }, input.video ? { setting: input.video, organizer: lead } : null);
      if (!r.ok) throw inconsistentSeries();
      firsts.push(r.value);
    } catch (err) {
      // The pure pass and runClaim saw the same claims; a difference rolls the whole series back.
      if (err instanceof DomainError && err.code === 'ARBITRATION_REJECTED') throw inconsistentSeries();
      throw err;
    }
  }
  announceSeries(tx, actor, { id: seriesId, customerId: actor.customerId, recurrence: input.recurrence, timeZone: lead.owner.timeZone, first: occurrences[0], now }, { ownerEmail: lead.owner.email, meetingClass: lead.meetingClass.name, requested: occurrences.length, min, bookingIds: firsts.map((b) => b.booking_id), refused });
  return { ok: true, value: { ...firsts[0], series: summary(seriesId, firsts, refused, kept.map((i) => occurrences[i].index)) } };
}

/**
 * The refused occurrences of a group series, in index order: each as the first refusing owner's
 * single-claim refusal (code, message, reason, alternatives) with `owners`, every refusing owner
 * and its reason; one rejection audit row per refusing owner and occurrence.
 */
function groupRefusedOccurrences(tx: Tx, actor: AgentActor, byIndex: ReadonlyMap<number, OwnerPass[]>, seriesId: string, idempotencyKey: string | null, now: Date): RefusedOccurrence[] {
  return [...byIndex.keys()]
    .sort((a, b) => a - b)
    .map((i) => {
      const perOwner = byIndex.get(i)!.map((p) => ({
        target: p.target,
        refusal: refusedOccurrences(tx, p.verdicts, { actor, target: p.target, policy: requestPolicy(actor, p.target), now, action: 'booking.create', seriesId, idempotencyKey })[0],
      }));
      const first = perOwner[0].refusal;
      return { ...first, owners: perOwner.map((p) => ({ owner_email: p.target.owner.email, code: p.refusal.code, ...(p.refusal.reason ? { reason: p.refusal.reason } : {}) })) };
    });
}
