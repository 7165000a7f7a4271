import type { Executor } from '@/db/client';
import { log } from '@/server/log';

/**
 * Work a change does once it has committed, never inside its transaction (mail, the verified-key
 * cache of this process): docs/api.md "Idempotency". A keyed REST write runs its handler inside
 * the wrapper's transaction (runAnsweredTransaction in ./claims/answeredClaim.ts), so the handler's `db`
 * may be a transaction that commits only after the handler returned: the work waits for it.
 */
type Hook = (db: Executor) => unknown;

/** Transactions whose after-commit work is queued, with the database it then runs on. */
const queues = new WeakMap<Executor, Hook[]>();

/**
 * Run `fn` once what `db` wrote has committed: now, with `db`, unless `db` is a transaction of
 * runAnsweredTransaction (it then runs after that transaction's COMMIT, with the database; a
 * failure is logged, the change having committed; nothing runs if it rolls back).
 */
export async function afterCommit(db: Executor, fn: Hook): Promise<void> {
  const queue = queues.get(db);
  if (queue) queue.push(fn);
  else await fn(db);
}

/** `tx` queues its after-commit work (until runQueued or forgotten with it). */
export function queueAfterCommit(tx: Executor): void {
  queues.set(tx, []);
}

/** Run what `tx` queued, in order, on `db` (after its COMMIT). */
export async function runQueued(tx: Executor, db: Executor): Promise<void> {
  const queue = queues.get(tx);
  queues.delete(tx);
  for (const fn of queue ?? []) {
    try {
      await fn(db);
    } catch (err) {
      log.error('work after commit failed', { err });
    }
  }
}
