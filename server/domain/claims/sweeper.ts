import type { Db } from '@/db/client';
import { log } from '@/server/log';
import { expireDueHolds } from './context';

/**
 * Tidies up on a timer: flips holds past their time to live to `expired`
 * (sending their agents `hold.expired`) and deletes idempotency records past
 * retention. Correctness never depends on it: expiry is judged against the
 * clock wherever a hold is read or competes for time.
 */
export function startSweeper(
  getDb: () => Promise<Db>,
  opts: { intervalMs?: number; sweepIdempotency?: (db: Db, now: Date) => Promise<number> } = {},
): () => void {
  const intervalMs = opts.intervalMs ?? 15_000;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const db = await getDb();
      const now = new Date();
      await db.transaction((tx) => expireDueHolds(tx, null, now));
      if (opts.sweepIdempotency) await opts.sweepIdempotency(db, now);
    } catch (err) {
      log.warn('sweeper run failed', { err });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
