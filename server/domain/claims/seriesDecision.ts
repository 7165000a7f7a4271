import type { Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import type { AgentActor } from '../access';
import { writeAudit, type AuditAction, type AuditEntry } from '../audit';
import { DomainError } from '../errors';
import { arbitrate, localSpan, type Decision, type Interval, type LocalSpan, type RequestPolicy } from '../scheduling';
import type { SeriesOccurrence } from '../scheduling/series';
import { ownerRules, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { decisionError, rejectionAudit } from './rejection';

/**
 * Deciding the occurrences of a recurring series together (docs/arbitration.md "Recurring
 * series"), for every act on a series that claims time: a booking or hold series made, a series
 * hold confirmed with a scope, a series booking moved with a scope. A pure pass arbitrates each
 * occurrence on the claims around it (less what earlier occurrences push aside, plus what they
 * add); the refused ones are audited and answered together, each with the refusal a single claim
 * of it gets. The accepted ones then go through runClaim, one by one, in the caller's transaction.
 */

/** A refused occurrence: its place in the series and the refusal a single claim of it gets. */
export type RefusedOccurrence = { index: number; code: string; message: string; reason?: string } & LocalSpan & Record<string, unknown>;

/** An occurrence as a series answer lists it: its index in the rule (on creation) and its claim's id. */
export type SeriesItem = { index?: number } & LocalSpan & ({ booking_id: string } | { hold_id: string });

export type Verdict = { occurrence: SeriesOccurrence; around: LoadedClaim[]; decision: Decision };

type DecideContext = {
  target: SchedulingTarget;
  now: Date;
  /** The claim each occurrence sets aside (a confirm's own hold). */
  exclude?: (i: number) => string[];
  /** What an accepted occurrence adds to the claims around the later ones (none: it is already among them). */
  accepted?: (occurrence: SeriesOccurrence, i: number) => LoadedClaim | null;
};

/**
 * The pure pass: each occurrence arbitrated on the claims around it, less what earlier
 * occurrences pushed aside, plus what the earlier accepted ones add (so the daily limit and
 * buffers see the series itself).
 */
export function decideAll(occurrences: readonly SeriesOccurrence[], arounds: readonly LoadedClaim[][], policy: RequestPolicy, ctx: DecideContext): Verdict[] {
  const rules = ownerRules(ctx.target.owner);
  const gone = new Set<string>();
  const added: LoadedClaim[] = [];
  return occurrences.map((occurrence, i) => {
    const around = [...arounds[i].filter((c) => !gone.has(c.id) && !gone.has(c.group ?? c.id)), ...added];
    const decision = arbitrate({ start: occurrence.start, end: occurrence.end, ...policy }, { now: ctx.now.getTime(), rules, claims: around, excludeClaimIds: ctx.exclude?.(i) });
    if (decision.outcome === 'accept') {
      for (const id of decision.preempt) gone.add(id);
      const claim = ctx.accepted?.(occurrence, i);
      if (claim) added.push(claim);
    }
    return { occurrence, around, decision };
  });
}

/** An occurrence accepted as the claims around the later ones see it (its minutes count toward its day). */
export function occurrenceClaim(o: Interval, id: string, kind: 'hold' | 'booking', policy: RequestPolicy, agentId: string | null, meetingClass: string): LoadedClaim {
  return { id, kind, start: o.start, end: o.end, countedMinutes: (o.end - o.start) / 60_000, priority: policy.priority, sacred: false, meetingClass, agentId, bufferBeforeMs: policy.bufferBeforeMs, bufferAfterMs: policy.bufferAfterMs };
}

/**
 * The refused occurrences among `verdicts`, each with a rejection audit row (`details.series_id`,
 * `details.occurrence`) deferred in `tx`, and as answered (its refusal's code, message, reason,
 * alternatives, conflicts).
 */
export function refusedOccurrences(
  tx: Tx,
  verdicts: readonly Verdict[],
  ctx: { actor: AgentActor; target: SchedulingTarget; policy: RequestPolicy; now: Date; action: AuditAction; seriesId: string; idempotencyKey: string | null; claimOf?: (v: Verdict) => Pick<AuditEntry, 'holdId' | 'bookingId'> },
): RefusedOccurrence[] {
  const { actor, target, now } = ctx;
  return verdicts
    .filter((v) => v.decision.outcome !== 'accept')
    .map((v) => {
      const d = v.decision as Exclude<Decision, { outcome: 'accept' }>;
      const { start, end, index } = v.occurrence;
      const base = { customerId: actor.customerId, agentId: actor.agentId, actor: { kind: 'agent' as const, agentId: actor.agentId }, ownerId: target.owner.id, ownerEmail: target.owner.email, action: ctx.action, meetingClass: target.meetingClass.name, start: new Date(start), end: new Date(end), holdId: null, idempotencyKey: ctx.idempotencyKey, at: now, ...ctx.claimOf?.(v) };
      const row = rejectionAudit(base, d);
      row.details = { ...row.details, series_id: ctx.seriesId, occurrence: index };
      defer(tx, writeAudit(tx, row));
      const error = decisionError(d, v.around, { target, policy: ctx.policy, start, end, now: now.getTime() });
      return { index, ...localSpan(new Date(start), new Date(end), target.owner.timeZone), code: error.code, message: error.message, ...(error.reason ? { reason: error.reason } : {}), ...error.extra };
    });
}

/** The 409 of a series act refused: `error.reason` is the first refused occurrence's, every refused one listed. */
export function seriesRefusal(refused: readonly RefusedOccurrence[], message: string): DomainError {
  return new DomainError('ARBITRATION_REJECTED', message, { reason: refused[0].reason ?? refused[0].code, extra: { alternatives: [], conflicts: [], refused_occurrences: refused } });
}

/** runClaim refused an occurrence the pure pass accepted: the whole transaction rolls back rather than commit part of the series. */
export function inconsistentSeries(): DomainError {
  return new DomainError('ARBITRATION_REJECTED', 'The series could not be decided consistently; nothing was changed, try again', { reason: 'NO_CAPACITY', extra: { alternatives: [] } });
}

/** A claim's place in a series answer. */
export function seriesItem(kind: 'hold' | 'booking', id: string, span: LocalSpan, index?: number): SeriesItem {
  const item = { ...(index === undefined ? {} : { index }), [kind === 'hold' ? 'hold_id' : 'booking_id']: id, start: span.start, end: span.end, start_local: span.start_local, end_local: span.end_local };
  return item as SeriesItem;
}
