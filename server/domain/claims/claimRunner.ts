import type { Span } from '@opentelemetry/api';
import { is } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '@/db/client';
import { recordFailure, setSpanAttributes, startSpan, tracingEnabled, withSpan } from '@/server/observability/tracing';
import { isConstraintViolation, PG_DEADLOCK, PG_EXCLUSION_VIOLATION, PG_SERIALIZATION_FAILURE } from '@/db/errors';
import { runTransaction } from '@/db/hot/driver';
import { calendarGate, CalendarGateNeeded, ensureCalendarsUsable, type CalendarGate, type NamedOwner } from '../calendars/mirror';
import { DomainError } from '../errors';
import { offerFreed } from './waitlist/offers';
import { mailOffers } from './waitlist/offerMail';
import { metrics, recordDecision, secondsSince, trackTransaction } from '@/server/observability/metrics';

/**
 * The claim runner: the one path every claim takes (direct booking, hold, confirm, proposal
 * approval) and the proposal decline with it (docs/architecture.md, "One claim path").
 * The caller hands it an operation (ClaimOperation: a queue key and a core that runs in a
 * transaction it is handed and returns an Answer) and gets the value back, or the rejection
 * thrown after commit. The runner owns what lies around the core: the calendar gate of the
 * owner the claim names (synced first, or refused with the same 409/503 on every path), the
 * refusals without the lock, the in-process queue per owner, the transaction, and the one
 * retry when the exclusion constraint fires. Deciding the claim inside the transaction is
 * claimDecision.ts's.
 */

/** A claim operation's value, or its rejection, returned from the transaction so its audit row commits. */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: DomainError };

/**
 * A claiming operation ready to run: the transaction's queue key (inQueue) and its core,
 * which runs in a transaction it is handed and returns its answer. runClaimOperation opens
 * the transaction; the REST wrapper (server/http/idempotency.ts) adds the idempotent answer
 * as the transaction's last statement.
 */
export type ClaimOperation<T> = {
  queueKey: string;
  /** What is decided (the audit action: booking.create, hold.create, hold.confirm, proposal.approve, ...), for scheduler_decisions_total. */
  action?: string;
  /**
   * A group claim (docs/groups.md): the queue keys of every owner it names. The runner takes
   * them one after another in sorted order, so two groups sharing owners cannot wait on each
   * other in memory; the core locks the owner rows in owner-id order (groupService.ts).
   */
  queueKeys?: string[];
  /** A group claim: the owners whose calendar gates run first (instead of the one the REST wrapper names). */
  gateOwners?: NamedOwner[];
  /** `gate`: the calendar gate checked in the claim's own reads (CalendarGateNeeded; only where `gatesCalendars`). */
  run(tx: Tx, gate?: CalendarGate): Promise<Answer<T>>;
  /**
   * A refusal settled by a plain read before the queue and the owner lock
   * (earlyRefusal.ts), or null: run it first (refuseEarly), then the transaction.
   */
  refuseWithoutLock?(db: Db, gate?: CalendarGate): Promise<DomainError | null>;
  /**
   * The claim checks the calendar gate of the owner it names in its own reads when given one
   * (runClaimOperation with a GateOwner); otherwise the runner runs the gate first.
   */
  gatesCalendars?: boolean;
  /** The slot it claims (start and end), when one: losers of the same slot wait for a running decision on it (refuseEarly). */
  slot?: string;
};

/**
 * Throw the refusal an operation can answer without the owner lock, if any. Only while
 * another decision on the same key and slot is queued or running in this process (a race
 * for the slot): an uncontended claim, or one for another slot of a busy owner, goes
 * straight to its transaction, without the extra read.
 */
async function refuseEarly(db: Db, operation: ClaimOperation<unknown>, gate?: CalendarGate): Promise<void> {
  const { slot } = operation;
  const keys = operation.queueKeys ?? [operation.queueKey];
  // A race for this very slot only: a claim for another slot of a busy owner would pay a read the lock settles anyway.
  if (!operation.refuseWithoutLock || !slot || !keys.some((k) => queuedSlots.get(k)?.has(slot))) return;
  const refusal = await operation.refuseWithoutLock(db, gate);
  if (refusal) throw refusal;
  // The decision running now may be taking this very slot (the read above came before its
  // COMMIT): wait for it in memory, outside the queue, and read once more. Losers of a race
  // that arrived before the winner committed are then refused together by one shared read,
  // not one by one under the lock (docs/architecture.md, "Refusals without the lock"). A
  // request for another slot of the owner goes straight to the queue.
  const head = keys.map((k) => running.get(k)).find((h) => h?.slot === slot);
  if (!head) return;
  await head.done;
  const second = await operation.refuseWithoutLock(db, gate);
  if (second) throw second;
}

/** The `slot` of a claim operation: its start and end. */
export const slotKey = (start: Date, end: Date): string => `${start.getTime()}|${end.getTime()}`;

/** The owner whose calendar gate a claim runs behind (docs/calendars.md), and the clock it is judged by. */
export type GateOwner = { owner: NamedOwner; now: Date };

/**
 * A refusal of the calendar gate (`refusal`, what the gate threw): the REST wrapper answers
 * it and frees the Idempotency-Key instead of storing it, as when the gate runs before the
 * key is claimed; a caller without a key answers `refusal` itself.
 */
export class GateRefusal extends Error {
  constructor(readonly refusal: unknown) {
    super('the calendar gate refused the claim');
  }
}

/**
 * Run a claim operation: its value, or its rejection thrown after commit (the rejection's
 * audit row commits). With `gateOwner`, the owner's calendar gate: an operation that
 * `gatesCalendars` checks it in the reads it sends anyway (no round trip for an owner with
 * only the internal calendar); when there is work (a sync, or a calendar failing closed) its
 * transaction rolls back, the gate runs here outside any transaction and the claim runs
 * again. Other operations get the gate first. The gate's refusals are thrown as GateRefusal.
 * `onAccept`: called in the transaction with an accepted value, for statements that go out
 * last, with COMMIT (the REST wrapper's idempotent answer).
 */
export async function runClaimOperation<T>(db: Db, operation: ClaimOperation<T>, gateOwner?: GateOwner, onAccept?: (tx: Tx, value: T) => void): Promise<T> {
  // The runner owns its transaction (its retries, its queue, COMMIT sent early): never inside another
  // one (a REST operation that runs a claim declares `transaction: 'own'`, server/http/operation.ts).
  if (is(db, PgTransaction)) throw new Error(`claim ${operation.action ?? 'claim'} run inside a transaction: the claim runner opens its own`);
  const action = operation.action ?? 'claim';
  try {
    const value = await runGatedClaim(db, operation, gateOwner, onAccept);
    recordDecision(action, 'accept', 'none');
    return value;
  } catch (err) {
    // Counted after the transaction: a decision the exclusion retry ran twice counts once.
    const refusal = err instanceof GateRefusal ? err.refusal : err;
    if (refusal instanceof DomainError) recordDecision(action, 'reject', refusal.reason ?? refusal.code);
    else recordDecision(action, 'error', 'internal_error');
    throw err;
  }
}

async function runGatedClaim<T>(db: Db, operation: ClaimOperation<T>, gateOwner: GateOwner | undefined, onAccept: ((tx: Tx, value: T) => void) | undefined): Promise<T> {
  if (operation.gateOwners) {
    const now = gateOwner?.now ?? new Date();
    await Promise.all(operation.gateOwners.map((owner) => runGate(db, { owner, now })));
    return decide(db, operation, undefined, onAccept);
  }
  if (gateOwner && !operation.gatesCalendars) await runGate(db, gateOwner);
  try {
    return await decide(db, operation, gateOwner && operation.gatesCalendars ? calendarGate() : undefined, onAccept);
  } catch (err) {
    if (!(err instanceof CalendarGateNeeded)) throw err;
    await runGate(db, gateOwner!);
    return decide(db, operation, undefined, onAccept);
  }
}

async function runGate(db: Db, { owner, now }: GateOwner): Promise<void> {
  try {
    await ensureCalendarsUsable(db, owner, now);
  } catch (err) {
    throw new GateRefusal(err);
  }
}

async function decide<T>(db: Db, operation: ClaimOperation<T>, gate: CalendarGate | undefined, onAccept: ((tx: Tx, value: T) => void) | undefined): Promise<T> {
  await refuseEarly(db, operation, gate);
  const traced = tracingEnabled();
  let mailDue = false;
  const answer = await runClaimTransaction(
    db,
    async (tx) => {
      const a = await operation.run(tx, gate);
      // Time the operation freed goes to the waitlist in this transaction (docs/arbitration.md "Waitlist").
      mailDue = await offerFreed(tx);
      if (a.ok) onAccept?.(tx, a.value);
      if (traced) setSpanAttributes(a.ok ? { outcome: 'accepted' } : { outcome: 'refused', reason: a.error.reason ?? a.error.code });
      return a;
    },
    operation.queueKeys ?? operation.queueKey,
    operation.slot,
  );
  // A requester offered time hears of it once the offer committed (claims/waitlist/offerMail.ts).
  if (mailDue) await mailOffers(db);
  if (!answer.ok) throw answer.error;
  return answer.value;
}

/** How often a deadlock or serialization failure the database still reports is retried inside the request. */
const MAX_LOCK_RETRIES = 8;

/**
 * The claim's transaction with its spans (docs/operations.md "Traces"): `claim.transaction`
 * around it (the decision's statements, the owner lock wait, the arbitration inside), and
 * `claim.commit` from the decision's end to the COMMIT's answer (postgres.js sends COMMIT
 * behind the last deferred statements: db/hot/driver.ts).
 */
function claimTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, attempt: number): Promise<T> {
  if (!tracingEnabled()) return runTransaction(db, fn);
  return withSpan('claim.transaction', { attempt }, () => {
    let commit: Span | undefined;
    return runTransaction(db, async (tx) => {
      const value = await fn(tx);
      commit = startSpan('claim.commit');
      return value;
    }).then(
      (value) => {
        commit?.end();
        return value;
      },
      (err: unknown) => {
        if (commit) {
          recordFailure(commit, err);
          commit.end();
        }
        throw err;
      },
    );
  });
}

/**
 * Run a claiming transaction. The owner lock makes decisions of one owner
 * sequential, so the exclusion constraint fires only against writers that do
 * not take it; then the whole decision runs once more to answer the true
 * reason, and a second collision is answered as NO_CAPACITY, never a 500.
 * A deadlock (40P01) or serialization failure (40001) is retried inside, after
 * a short random pause, never surfaced (docs/groups.md): owners are locked in
 * one order, so it can only come from writers outside the claim path.
 */
async function runClaimTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, queueKey?: string | string[], slot?: string): Promise<T> {
  const run = async () => {
    for (let attempt = 0, lockRetries = 0; ; attempt++) {
      try {
        trackTransaction(1);
        try {
          return await claimTransaction(db, fn, attempt);
        } finally {
          trackTransaction(-1);
        }
      } catch (err) {
        if ((isConstraintViolation(err, PG_DEADLOCK) || isConstraintViolation(err, PG_SERIALIZATION_FAILURE)) && lockRetries++ < MAX_LOCK_RETRIES) {
          attempt--;
          await new Promise((r) => setTimeout(r, 1 + Math.random() * 10 * lockRetries));
          continue;
        }
        if (!isConstraintViolation(err, PG_EXCLUSION_VIOLATION)) throw err;
        if (attempt >= 1) {
          throw new DomainError('ARBITRATION_REJECTED', 'The slot was just taken by a concurrent request', { reason: 'NO_CAPACITY', extra: { alternatives: [] } });
        }
      }
    }
  };
  if (typeof queueKey === 'string') return inQueue(queueKey, run, slot);
  // Several owners: their queues one after another, in one (sorted) order.
  const keys = [...new Set(queueKey ?? [])].sort();
  const nest = (i: number): Promise<T> => (i < keys.length ? inQueue(keys[i], () => nest(i + 1), slot) : run());
  return nest(0);
}

const queues = new Map<string, Promise<void>>();
/** Per key, the slots of the decisions queued or running (and how many of each). */
const queuedSlots = new Map<string, Map<string, number>>();
/** Per key, the decision running now and its slot: `done` settles when it has finished (committed or rolled back). */
const running = new Map<string, { done: Promise<void>; slot?: string }>();

/** The queue key of claims on one owner named by email. */
export function ownerQueueKey(customerId: string, ownerEmail: string): string {
  return `owner:${customerId}:${ownerEmail.trim().toLowerCase()}`;
}

/** The queue keys and calendar gates of a group claim: every owner's, the first named leading. */
export function groupRunnerFields(actor: { customerId: string }, emails: readonly string[]) {
  return { queueKey: ownerQueueKey(actor.customerId, emails[0]), queueKeys: emails.map((e) => ownerQueueKey(actor.customerId, e)), gateOwners: emails.map((email) => ({ customerId: actor.customerId, email })) };
}

/**
 * Run claim decisions with the same key (an owner, a hold) one at a time in
 * this process. Correctness comes from the owner row lock; this only keeps a
 * burst for one owner from parking every pooled connection on that lock
 * (which would stall other owners and the health check): waiters wait here,
 * in memory, and at most one per key and instance waits in the database.
 */
async function inQueue<T>(key: string, fn: () => Promise<T>, slot?: string): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
  const head = { done: mine, slot };
  queues.set(key, mine);
  if (slot) {
    const slots = queuedSlots.get(key) ?? new Map<string, number>();
    slots.set(slot, (slots.get(slot) ?? 0) + 1);
    queuedSlots.set(key, slots);
  }
  try {
    const queued = process.hrtime.bigint();
    // The claim queue wait: behind the decisions on this key queued before it in this process.
    await (tracingEnabled() ? withSpan('claim.queue_wait', undefined, () => previous) : previous);
    metrics().claimQueueWait.observe(secondsSince(queued));
    running.set(key, head);
    return await fn();
  } finally {
    done?.();
    if (running.get(key) === head) running.delete(key);
    const slots = slot ? queuedSlots.get(key) : undefined;
    if (slots) {
      const n = (slots.get(slot!) ?? 1) - 1;
      if (n > 0) slots.set(slot!, n);
      else slots.delete(slot!);
      if (!slots.size) queuedSlots.delete(key);
    }
    if (queues.get(key) === mine) queues.delete(key);
  }
}
