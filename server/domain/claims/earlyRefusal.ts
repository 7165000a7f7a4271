import type { Db } from '@/db/client';
import { claimIdMadeWithKey } from '@/db/hot/claims';
import { normalizeEmail, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { arbitrate, type RejectReason } from '../scheduling';
import { writeAudit, type AuditAction } from './audit';
import { decisionError, rejectionAudit, requestPolicy } from './claimDecision';
import { loadClaims } from './claimStore';
import { ARBITRATION_MARGIN_MS, loadTarget, ownerRules } from './claimTarget';

/**
 * Refusals a plain read can settle: the slot is taken by a claim of higher or equal
 * priority (or a hard block), or by a sacred meeting. Nothing a waiting request could
 * do changes them except a cancellation, and a request answered from a read taken while
 * it was in flight is answered as of that moment.
 */
const SETTLED_BY_A_READ: ReadonlySet<RejectReason> = new Set(['NO_CAPACITY', 'SACRED_MEETING']);

/** A claim on an owner named by email, as an operation describes it before its transaction. */
export type EarlyClaim = {
  action: AuditAction;
  kind: 'hold' | 'booking';
  actor: AgentActor;
  input: { ownerEmail: string; calendarType?: string; meetingClass: string };
  start: Date;
  end: Date;
  now: Date;
  idempotencyKey: string | null;
};

/**
 * The refusal of a claim whose slot a consistent read (one read-only snapshot, no lock)
 * already shows taken, with its audit row written; or null, and the claim goes the locked
 * way (docs/architecture.md, "Deciding on time"). This only ever refuses: every acceptance
 * is decided under the owner lock, with the exclusion constraint behind it. Losers of a
 * race that arrive after the winner committed answer here, without queueing for the
 * owner (inQueue) or its row lock. The 409 is the locked path's: the verdict and its
 * alternatives come from the same arbitration over the same range of claims
 * (ARBITRATION_MARGIN_MS). Skipped when the agent already made a claim with this
 * Idempotency-Key (the retry must find it, not be refused by it), and whenever the read
 * raises an error (the locked path answers it).
 */
export async function refuseWithoutLock(db: Db, claim: EarlyClaim): Promise<DomainError | null> {
  const { actor, input, start, end, now } = claim;
  const owner = { customerId: actor.customerId, email: normalizeEmail(input.ownerEmail) };
  let read;
  try {
    read = await db.transaction(
      async (tx) => {
        const [made, target, around] = await Promise.all([
          claim.idempotencyKey ? claimIdMadeWithKey(tx, actor.agentId, claim.idempotencyKey, claim.kind, now) : undefined,
          loadTarget(tx, actor.customerId, input, false),
          loadClaims(tx, owner, new Date(start.getTime() - ARBITRATION_MARGIN_MS), new Date(end.getTime() + ARBITRATION_MARGIN_MS), now),
        ]);
        return made ? null : { target, around };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
  if (!read) return null;
  const { target, around } = read;
  const policy = requestPolicy(actor, target);
  const decision = arbitrate({ start: start.getTime(), end: end.getTime(), ...policy }, { now: now.getTime(), rules: ownerRules(target.owner), claims: around });
  if (decision.outcome !== 'reject' && decision.outcome !== 'counter_propose') return null;
  if (!SETTLED_BY_A_READ.has(decision.failedReason)) return null;
  await writeAudit(
    db,
    rejectionAudit(
      {
        customerId: actor.customerId,
        agentId: actor.agentId,
        ownerId: target.owner.id,
        ownerEmail: target.owner.email,
        action: claim.action,
        meetingClass: target.meetingClass.name,
        start,
        end,
        holdId: null,
        idempotencyKey: claim.idempotencyKey,
        at: now,
      },
      decision,
    ),
  );
  return decisionError(decision, around, { target, policy, start: start.getTime(), end: end.getTime(), now: now.getTime() });
}
