import type { Db } from '@/db/client';
import { leaseDueDeliveries } from '@/db/hot/webhooks';
import { log } from '@/server/log';
import { stayListening, type ChannelSubscription } from '../channel';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';
import { deliverLeased, leaseMs, type DeliveryOptions } from './delivery';


/** Deliveries in flight at once in one process, unless configured otherwise. */
export const DEFAULT_MAX_IN_FLIGHT = 64;
/** How often the worker looks while its notification subscription is down (or it has none and `pollMs` is longer). */
const UNLISTENED_POLL_MS = 1_000;
/** A subscription that could not be made is tried again this much later. */
const RESUBSCRIBE_MS = 5_000;

/**
 * Subscribe to the outbox's announcements (DbHandle.listen on WEBHOOK_OUTBOX_CHANNEL,
 * db/hot/webhooks.ts): `onNotify` with the endpoint's id for every committed new row (or resumed
 * endpoint), `onState` whether
 * the subscription is live. Resolves to the unsubscribe.
 */
type OutboxSubscription = ChannelSubscription;

export type WorkerOptions = DeliveryOptions & {
  /** The fallback poll while `listen` is live; without `listen`, how often the worker looks (at most UNLISTENED_POLL_MS apart). */
  pollMs: number;
  /** Deliveries in flight at once in this process (default DEFAULT_MAX_IN_FLIGHT). */
  maxInFlight?: number;
  /** Woken on commit of new outbox rows (server/startup.ts passes the database's NOTIFY subscription). */
  listen?: OutboxSubscription;
};

/**
 * The delivery loop of a server process (docs/webhooks.md "Delivery"). It looks for due rows when
 * told of new ones (NOTIFY on commit through `listen`, the payload naming the endpoint), when one
 * of its deliveries finishes and its endpoint has more rows waiting (or places were short), when a
 * retry it scheduled falls due, at start, and otherwise only every `pollMs` as a fallback (a row
 * another instance left behind). Each pass leases due rows up to the free places under
 * `maxInFlight` and starts each on its own: nothing waits for a batch, so a receiver that hangs
 * holds one place (up to its timeout) and never delays another endpoint's delivery.
 * Per-endpoint order holds because only an endpoint's oldest pending row can be leased, and it
 * stays leased while in flight (db/hot/webhooks.ts): a notice for an endpoint in flight here is
 * kept for when its delivery finishes. Runs in every instance; the lease keeps two instances
 * from sending one row at once.
 */
export function startWebhookWorker(getDb: () => Promise<Db>, opts: WorkerOptions): () => void {
  const max = Math.max(1, opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  let inFlight = 0;
  let leasing = false;
  let again = false;
  let stopped = false;
  let listening = false;

  // One timer, set to the earliest moment something is known to be due: a retry this process
  // scheduled (all of them are kept in `retries`, so a later one is not forgotten when an earlier
  // one fires) or the fallback poll, whichever comes first.
  const retries = new Set<number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;
  const wakeAt = (at: number) => {
    if (stopped || at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      const now = Date.now();
      for (const t of retries) if (t <= now) retries.delete(t);
      if (retries.size) wakeAt(Math.min(...retries));
      void fill();
    }, Math.max(0, at - Date.now()));
    timer.unref?.();
  };
  const retryAt = (at: number) => {
    retries.add(at);
    wakeAt(at);
  };
  const fallbackMs = () => (listening ? opts.pollMs : Math.min(opts.pollMs, UNLISTENED_POLL_MS));

  // Endpoints with a row in flight here; `recheck`: more of its rows may be due when it finishes.
  const inFlightEndpoints = new Map<string, { recheck: boolean }>();
  // Endpoints announced while a lease statement runs (their rows may be newer than its snapshot).
  let announcedDuringLease: Set<string> | null = null;
  // The last pass filled every free place: due rows may be left, so every finished delivery looks again.
  let short = false;

  const fill = async () => {
    if (stopped) return;
    if (leasing) {
      again = true; // told of more work while leasing: look once more afterwards
      return;
    }
    leasing = true;
    workerBeat('webhooks');
    try {
      const db = await getDb();
      do {
        again = false;
        const free = max - inFlight;
        if (free <= 0 || stopped) {
          short = true;
          break;
        }
        const now = new Date();
        const announced = (announcedDuringLease = new Set());
        const leased = await leaseDueDeliveries(db, now, free, new Date(now.getTime() + leaseMs(opts)), opts.customerId ?? null);
        announcedDuringLease = null;
        for (const d of leased) {
          inFlight++;
          const entry = { recheck: d.more || announced.has(d.endpointId) };
          inFlightEndpoints.set(d.endpointId, entry);
          deliverLeased(db, d, opts)
            // A failed attempt is due again at `next`: look then (a few ms late, so it is due by the database's comparison).
            .then((next) => next && retryAt(next.getTime() + 5))
            .catch((err) => log.warn('webhook delivery failed to record', { err, delivery: d.id }))
            .finally(() => {
              inFlight--;
              inFlightEndpoints.delete(d.endpointId);
              if (entry.recheck || short) void fill();
            });
        }
        // A full lease may have left more due rows behind: keep filling while places are free.
        short = leased.length === free;
        if (short) again = true;
      } while (again);
    } catch (err) {
      log.warn('webhook delivery pass failed', { err });
    } finally {
      leasing = false;
      wakeAt(Date.now() + fallbackMs());
    }
  };
  /** A NOTIFY from the outbox (payload: the endpoint's id). */
  const announced = (endpointId: string) => {
    const inFlightHere = inFlightEndpoints.get(endpointId);
    if (inFlightHere) {
      inFlightHere.recheck = true; // its head is in flight: the new row waits behind it
      return;
    }
    announcedDuringLease?.add(endpointId);
    void fill();
  };

  // Subscribe; when that fails (the database unreachable at start), poll every second and try again.
  let stopListening: (() => void) | undefined;
  if (opts.listen)
    stopListening = stayListening(
      opts.listen,
      {
        notify: announced,
        state: (live) => {
          listening = live;
          // Back (or first) on the channel: rows committed while it was down were not announced.
          if (live) void fill();
          else wakeAt(Date.now() + fallbackMs());
        },
        // Said once, not at every retry.
        cannotListenYet: (err) => log.warn('webhook worker cannot listen for new deliveries yet; polling until it can', { err, every_ms: fallbackMs() }),
      },
      RESUBSCRIBE_MS,
    );
  // Rows left from before a restart (or committed before the subscription) go out at once.
  void fill();
  workerStarted('webhooks', Math.max(60_000, opts.pollMs * 3));
  return () => {
    stopped = true;
    workerStopped('webhooks');
    clearTimeout(timer);
    stopListening?.();
  };
}
