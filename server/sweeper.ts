import type { Db } from '@/db/client';
import { expireDueHolds } from '@/server/domain/claims/claimTarget';
import { sweepExpiredProposals } from '@/server/domain/publicScheduling/review';
import { sweepIdempotency } from '@/server/http/idempotency';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { sweepDeliveredWebhooks } from '@/server/domain/webhooks/delivery';
import { log } from '@/server/log';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';

export type SweepTask = { name: string; run(db: Db, now: Date): Promise<unknown> };

/**
 * Tidies up on a timer (holds past their time to live, unverified proposals
 * past 24 h, idempotency keys past retention). Correctness never depends on
 * it: every expiry is also judged against the clock where the record is read.
 * Tasks run one after another; a failing task is logged and the rest go on.
 */
export function startSweeper(getDb: () => Promise<Db>, tasks: SweepTask[], intervalMs = 15_000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    workerBeat('sweeper');
    try {
      const db = await getDb();
      for (const task of tasks) {
        try {
          await task.run(db, new Date());
        } catch (err) {
          log.warn('sweep task failed', { task: task.name, err });
        }
      }
    } catch (err) {
      log.warn('sweeper could not reach the database', { err });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  // A round still running (a slow task) skips ticks: stalled only after several intervals.
  workerStarted('sweeper', Math.max(60_000, intervalMs * 8));
  return () => {
    clearInterval(timer);
    workerStopped('sweeper');
  };
}

/** What the server sweeps: holds (sending hold.expired), unverified proposals, idempotency keys, delivered webhook rows after 30 days. */
export const SWEEP_TASKS: SweepTask[] = [
  { name: 'expire holds', run: (db, now) => db.transaction((tx) => expireDueHolds(tx, null, now)) },
  { name: 'expire unverified proposals', run: (db, now) => sweepExpiredProposals(db, now) },
  { name: 'drop idempotency keys past retention', run: (db, now) => sweepIdempotency(db, now) },
  { name: 'send booking invitations', run: (db, now) => sendDueInvitations(db, now) },
  { name: 'drop delivered webhook rows past retention', run: (db, now) => sweepDeliveredWebhooks(db, now) },
];
