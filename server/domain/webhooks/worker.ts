import type { Db } from '@/db/client';
import { leaseDueDeliveries } from '@/db/hot/webhooks';
import { log } from '@/server/log';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';
import { deliverLeased, leaseMs, type DeliveryOptions } from './delivery';

/** Deliveries in flight at once in one process, unless configured otherwise. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

export type WorkerOptions = DeliveryOptions & {
  pollMs: number;
  /** Deliveries in flight at once in this process (default DEFAULT_MAX_IN_FLIGHT). */
  maxInFlight?: number;
};

/**
 * The delivery loop of a server process (docs/webhooks.md "Delivery"). Every `pollMs`, and at
 * once whenever a delivery finishes, it leases due rows up to the free places under
 * `maxInFlight` and starts each on its own: nothing waits for a batch, so a receiver that
 * hangs holds one place (up to its timeout) and never delays another endpoint's delivery.
 * Per-endpoint order holds because only an endpoint's oldest pending row can be leased, and
 * it stays leased while in flight (db/hot/webhooks.ts). Runs in every instance; the lease
 * keeps two instances from sending one row at once.
 */
export function startWebhookWorker(getDb: () => Promise<Db>, opts: WorkerOptions): () => void {
  const max = Math.max(1, opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  let inFlight = 0;
  let leasing = false;
  let again = false;
  let stopped = false;

  const fill = async () => {
    if (stopped) return;
    if (leasing) {
      again = true; // a delivery finished while leasing: look once more afterwards
      return;
    }
    leasing = true;
    workerBeat('webhooks');
    try {
      const db = await getDb();
      do {
        again = false;
        const free = max - inFlight;
        if (free <= 0 || stopped) break;
        const now = new Date();
        const leased = await leaseDueDeliveries(db, now, free, new Date(now.getTime() + leaseMs(opts)));
        for (const d of leased) {
          inFlight++;
          deliverLeased(db, d, opts)
            .catch((err) => log.warn('webhook delivery failed to record', { err, delivery: d.id }))
            .finally(() => {
              inFlight--;
              void fill();
            });
        }
        // A full lease may have left more due rows behind: keep filling while places are free.
        if (leased.length === free) again = true;
      } while (again);
    } catch (err) {
      log.warn('webhook delivery pass failed', { err });
    } finally {
      leasing = false;
    }
  };
  const timer = setInterval(() => void fill(), opts.pollMs);
  timer.unref?.();
  workerStarted('webhooks', Math.max(60_000, opts.pollMs * 50));
  return () => {
    stopped = true;
    workerStopped('webhooks');
    clearInterval(timer);
  };
}
