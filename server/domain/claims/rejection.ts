import { DomainError } from '../errors';
import { localSpan, nextAvailable, outOfOfficeAt, type Alternative, type Decision, type RequestPolicy } from '../scheduling';
import type { AuditEntry } from '../audit';
import { ownerRules, type LoadedClaim, type SchedulingTarget } from './claimTarget';

/**
 * A claim decision that does not accept, turned into what is answered and recorded: the 409
 * (or 422 PAST_TIME) with its alternatives, and the rejection's audit row. The locked path
 * (claimDecision.ts) and the refusals without the lock (earlyRefusal.ts) answer the same.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** Alternatives as answered; with the owner's zone each also carries start_local/end_local. */
export function alternativesJson(alts: readonly Alternative[], timeZone?: string) {
  return alts.map((a) => (timeZone ? { ...localSpan(a.start, a.end, timeZone), reason_code: a.reason_code } : { start: iso(a.start), end: iso(a.end), reason_code: a.reason_code }));
}

const REASON_MESSAGES: Record<string, string> = {
  NO_CAPACITY: 'The slot is committed by a booking of equal or higher priority, or lies inside a hard block',
  WORKING_HOURS: "The slot is outside the owner's working hours",
  OFF_DAY: "The slot is not on one of the owner's working days (see GET /v1/schedule-rules)",
  SACRED_MEETING: 'The slot overlaps a protected (sacred) meeting',
  MAX_DAILY_HOURS: "Booking this would exceed the owner's maximum daily meeting hours",
  PERMISSION_DENIED_PREEMPT: 'The slot is held by a lower-priority booking, but this agent lacks the preempt permission',
};

/** The 409 (or 422 PAST_TIME) a non-accepting decision answers. */
export function decisionError(decision: Exclude<Decision, { outcome: 'accept' }>, claimsAround: readonly LoadedClaim[], ctx: { target: SchedulingTarget; policy: RequestPolicy; start: number; end: number; now: number }): DomainError {
  if (decision.outcome === 'past_time') return new DomainError('PAST_TIME', 'The requested start is in the past');
  if (decision.failedReason === 'OUT_OF_OFFICE') return outOfOfficeError(claimsAround, ctx);
  const alternatives = alternativesJson(decision.alternatives, ctx.target.owner.timeZone);
  // conflicts[]: what the slot collided with, for agents (never on /public answers).
  const extra: Record<string, unknown> = { alternatives, conflicts: decision.conflicts };
  if (decision.failedReason === 'WORKING_HOURS' || decision.failedReason === 'OFF_DAY') {
    const next = nextAvailable({
      rules: ownerRules(ctx.target.owner),
      claims: claimsAround,
      now: ctx.now,
      durationMinutes: (ctx.end - ctx.start) / 60_000,
      request: ctx.policy,
      from: ctx.start,
      latestStart: ctx.start + 72 * 3_600_000,
    });
    extra.next_available = next ? localSpan(next.start, next.end, ctx.target.owner.timeZone) : null;
  }
  if (decision.warnings.length) extra.warnings = decision.warnings;
  const base = REASON_MESSAGES[decision.failedReason] ?? decision.failedReason;
  const message = decision.outcome === 'counter_propose' ? `${base}; counter-proposing ${alternatives.length} alternative slot(s) in alternatives[]` : base;
  return new DomainError('ARBITRATION_REJECTED', message, { reason: decision.reason, extra });
}

/** Looking past an out-of-office range for next_available: this long after its last day. */
const AFTER_AWAY_LOOKAHEAD_MS = 14 * 86_400_000;

/**
 * 409 OUT_OF_OFFICE (docs/arbitration.md "Out of office"): the range the slot falls in, and the
 * first acceptable slot of the same length after it (null when none within 14 days).
 */
function outOfOfficeError(claimsAround: readonly LoadedClaim[], ctx: { target: SchedulingTarget; policy: RequestPolicy; start: number; end: number; now: number }): DomainError {
  const rules = ownerRules(ctx.target.owner);
  const away = outOfOfficeAt(rules, ctx.start, ctx.end);
  const from = away?.after ?? ctx.end;
  const next = nextAvailable({ rules, claims: claimsAround, now: ctx.now, durationMinutes: (ctx.end - ctx.start) / 60_000, request: ctx.policy, from, latestStart: from + AFTER_AWAY_LOOKAHEAD_MS });
  const range = away ? { start: away.range.start, end: away.range.end } : null;
  return new DomainError('OUT_OF_OFFICE', `The owner is out of office${range ? ` from ${range.start} to ${range.end}` : ''}; next_available is the first free slot after`, {
    extra: { out_of_office: range, next_available: next ? localSpan(next.start, next.end, ctx.target.owner.timeZone) : null },
  });
}

/** The audit row of a refused claim: its outcome, reason, and the alternatives its 409 offers. */
export function rejectionAudit(audit: Omit<AuditEntry, 'outcome'>, decision: Exclude<Decision, { outcome: 'accept' }>): AuditEntry {
  return {
    ...audit,
    outcome: decision.outcome === 'counter_propose' ? 'counter_propose' : 'reject',
    reason: decision.outcome === 'past_time' ? 'PAST_TIME' : decision.reason,
    details: decision.outcome === 'past_time' ? undefined : { failed_reason: decision.failedReason, alternatives: alternativesJson(decision.alternatives) },
  };
}
