import type { Db } from '@/db/client';
import { log } from '@/server/log';
import { deliverDueWebhooks, type DeliveryOptions } from './delivery';

/**
 * The delivery loop of a server process: every `pollMs`, pass after pass while passes find
 * work. Runs in every instance; the lease keeps two instances from sending one row at once.
 */
export function startWebhookWorker(getDb: () => Promise<Db>, opts: DeliveryOptions & { pollMs: number }): () => void {
  let running = false;
  let stopped = false;
  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const db = await getDb();
      while (!stopped && (await deliverDueWebhooks(db, opts)) > 0);
    } catch (err) {
      log.warn('webhook delivery pass failed', { err });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, opts.pollMs);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
