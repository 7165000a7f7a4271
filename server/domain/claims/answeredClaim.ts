import type { Db, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { completeKeyRecord } from '@/db/hot/idempotency';
import { queueAfterCommit, runQueued } from '../afterCommit';
import { withCallerTimes } from '../callerZone';
import { runClaimOperation, type ClaimOperation, type GateOwner } from './claimRunner';

/**
 * A claim run for a request (docs/architecture.md "One claim path"): what the claim needs
 * from the request is handed to it as an argument, settled before the claim runs (the REST
 * wrapper's owner scope and Idempotency-Key, server/http/pipeline.ts); nothing calls back
 * into the transport.
 */
export type ClaimCall = {
  /**
   * The owner whose calendar gate (docs/calendars.md) the claim runs behind: the owner the
   * request names when its gate is the claim's (an `owner` scope with `gate: 'claim'`), or the
   * owner an operation learns first (a booking's owner, a pool's pick). None: no gate.
   */
  gate?: GateOwner;
  /** The request's Idempotency-Key record, when it has one: the claim stores its accepted answer there. */
  answer: KeyAnswer | null;
};

/**
 * Where an accepted claim's answer goes: the Idempotency-Key's record (docs/api.md
 * "Idempotency"), written as the claim transaction's last statement, so the effect and its
 * replayable answer commit together.
 */
export type KeyAnswer = {
  recordId: string;
  /** The status the accepted value is answered with (201, or 202 when an approval policy held it). */
  status: (value: unknown) => number;
  /** Top-level fields never stored (secrets shown once); a replay answers them as null. */
  redact: readonly string[];
  /** The caller's zone: the answer carries its twins (docs/api.md "The caller's time zone"). */
  zone: string | null;
  /**
   * Set once a claim's transaction stored the answer: its status and the text to send (the
   * stored text, unless fields were redacted), so the wrapper sends exactly what was stored.
   */
  answered?: { status: number; text: string };
};

/**
 * Run a claim through the claim runner (claims/claimRunner.ts) behind `call.gate`, and with a
 * key store its accepted answer (as answered: with the caller's twins, less redacted fields)
 * in the claim's own transaction. Returns the value; a rejection is thrown after commit, and
 * a refusal of the calendar gate comes as GateRefusal (the wrapper frees the key for it).
 */
export async function runAnsweredClaim<T>(db: Db, operation: ClaimOperation<T>, call: ClaimCall): Promise<T> {
  const { answer } = call;
  if (!answer) return runClaimOperation(db, operation, call.gate);
  let answered: KeyAnswer['answered'];
  const value = await runClaimOperation(db, operation, call.gate, (tx, raw) => {
    const stored = storedAnswer(answer, raw);
    defer(tx, completeKeyRecord(tx, answer.recordId, stored.status, stored.stored));
    answered = { status: stored.status, text: stored.text };
  });
  // Only once committed: an accept whose transaction failed (and ran again) leaves nothing behind.
  answer.answered = answered;
  return value;
}

/**
 * A keyed write that runs in a transaction of its own (not a claim: extending a hold; any other
 * keyed REST write, in the wrapper's transaction around its handler: server/http/pipeline.ts):
 * `fn`'s value is stored as the key's answer as the transaction's last statement, as
 * runAnsweredClaim does, so a retry after a COMMIT whose answer was lost replays it
 * (docs/operations.md "High availability"). `answerOf` says what of the value is answered (the
 * value itself by default; a handler's result: its body, and its status when it names one).
 * Work `fn` puts off with afterCommit (./afterCommit.ts) runs once the transaction committed,
 * on `db`. Without a key, just the transaction.
 */
export async function runAnsweredTransaction<T>(
  db: Db,
  answer: KeyAnswer | null,
  fn: (tx: Tx) => Promise<T>,
  answerOf: (value: T) => { body: unknown; status?: number } = (value) => ({ body: value }),
): Promise<T> {
  let answered: KeyAnswer['answered'];
  let opened: Tx | undefined;
  const value = await db.transaction(async (tx) => {
    opened = tx;
    queueAfterCommit(tx);
    const raw = await fn(tx);
    if (answer) {
      const { body, status } = answerOf(raw);
      const stored = storedAnswer(answer, body, status);
      await completeKeyRecord(tx, answer.recordId, stored.status, stored.stored);
      answered = { status: stored.status, text: stored.text };
    }
    return raw;
  });
  if (answer) answer.answered = answered;
  await runQueued(opened!, db);
  return value;
}

/** A value as a key stores it: as answered (the caller's twins), its status, and the text stored (less redacted fields). */
function storedAnswer(answer: KeyAnswer, raw: unknown, status?: number): { status: number; text: string; stored: string } {
  const shown = answer.zone ? withCallerTimes(raw, answer.zone) : raw;
  const text = JSON.stringify(shown);
  return { status: status ?? answer.status(shown), text, stored: answer.redact.length ? JSON.stringify(redact(shown, answer.redact)) : text };
}

/** A response body less fields never stored (secrets shown once); a replay answers them as null. */
export function redact(body: unknown, fields: readonly string[]): unknown {
  if (!fields.length || !body || typeof body !== 'object') return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const f of fields) if (f in copy) copy[f] = null;
  return copy;
}
