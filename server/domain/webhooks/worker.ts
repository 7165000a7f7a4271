import type { Db } from '@/db/client';
import { leaseDueDeliveries, leaseEndpointHead, recordDelivered, type DeliveredRecord, type LeasedDelivery } from '@/db/hot/webhooks';
import { log } from '@/server/log';
import { stayListening, type ChannelSubscription } from '../channel';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';
import { attemptLeased, leaseMs, type DeliveryOptions } from './delivery';


/** Deliveries in flight at once in one process, unless configured otherwise. */
export const DEFAULT_MAX_IN_FLIGHT = 64;
/** How often the worker looks while its notification subscription is down (or it has none and `pollMs` is longer). */
const UNLISTENED_POLL_MS = 1_000;
/** Statements the worker runs at once (records, leases, a sweep). */
const MAX_STATEMENTS = 8;
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
 * The delivery loop of a server process (docs/webhooks.md "Delivery"). It is told where the work
 * is and leases only there:
 * - a new row announced (NOTIFY on commit through `listen`, the payload naming the endpoint), or
 *   a retry it scheduled falling due: that endpoint's head
 *   (db/hot/webhooks.ts LEASE_ENDPOINT_HEAD);
 * - a delivery done: the delivered row is recorded and its endpoint's next due row leased in the
 *   same statement (RECORD_DELIVERED), so a backlog drains one statement per delivery.
 * Each is one small statement whose plan is a few probes by key, whatever the table sizes; the
 * sweep over every endpoint was one statement per delivery before, 4.6 ms of the embedded
 * database's time per event (docs/benchmarks/history/2026-11-29-webhooks-one-endpoint-lease.md).
 * It sweeps every active endpoint (LEASE_DUE_DELIVERIES) only at start, when the listener comes
 * (back), after a sweep that filled every free place (once places free up), and otherwise every
 * `pollMs` as a fallback (a row another instance left behind). Up to MAX_STATEMENTS run at once.
 * Each leased row is sent on its own: nothing waits for a batch, so a receiver that hangs holds
 * one place (up to its timeout) and never delays another endpoint's delivery; at most
 * `maxInFlight` rows are leased and not yet recorded. Per-endpoint order holds because only an
 * endpoint's oldest pending row can be leased, and it stays leased until recorded: a notice for
 * an endpoint in flight here is kept for when its row is recorded. Runs in every instance; the
 * lease keeps two instances from sending one row at once.
 */
export function startWebhookWorker(getDb: () => Promise<Db>, opts: WorkerOptions): () => void {
  const max = Math.max(1, opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  const customerId = opts.customerId ?? null;
  let stopped = false;
  let listening = false;
  const fallbackMs = () => (listening ? opts.pollMs : Math.min(opts.pollMs, UNLISTENED_POLL_MS));

  // Places taken: rows leased here and not yet recorded, and places reserved by a lease statement
  // under way. A delivered row keeps its place until it is recorded, and hands it to its
  // endpoint's next row when the record leases one.
  let inFlight = 0;
  // Endpoints with a row in flight here, and those whose head a statement is leasing; `recheck`:
  // told of a new row since the last statement that looked at the endpoint was issued.
  type Entry = { recheck: boolean };
  const inFlightEndpoints = new Map<string, Entry>();
  const leasing = new Map<string, Entry>();
  // Endpoints whose head to lease when a place is free.
  const wanted = new Set<string>();
  // Delivered rows waiting for their record.
  const delivered: { record: DeliveredRecord; endpointId: string }[] = [];
  // A sweep of every endpoint is due (at start: rows left from before a restart); one at a time.
  let sweepDue = true;
  let sweeping = false;
  let statements = 0;

  // One timer, set to the earliest moment something is known to be due: a retry this process
  // scheduled (one per endpoint: only its head is ever attempted) or the fallback sweep.
  const retries = new Map<string, number>();
  let pollAt = Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;
  const arm = () => {
    if (stopped) return;
    let at = pollAt;
    for (const t of retries.values()) if (t < at) at = t;
    if (at === timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    if (at === Infinity) return;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      const now = Date.now();
      for (const [endpointId, t] of retries)
        if (t <= now) {
          retries.delete(endpointId);
          wanted.add(endpointId);
        }
      if (pollAt <= now) {
        pollAt = Infinity;
        sweepDue = true;
      }
      arm();
      pump();
    }, Math.max(0, at - Date.now()));
    timer.unref?.();
  };
  const pollSoon = () => {
    pollAt = Math.min(pollAt, Date.now() + fallbackMs());
    arm();
  };

  const release = (endpointId: string) => {
    inFlight--;
    inFlightEndpoints.delete(endpointId);
    if (wanted.size || sweepDue) pump();
  };

  /** Send a leased row; its place is taken (counted) by the caller. */
  const start = (db: Db, d: LeasedDelivery) => {
    inFlightEndpoints.set(d.endpointId, { recheck: false });
    attemptLeased(db, d, opts, undefined, false).then(
      (outcome) => {
        if (outcome.delivered) {
          delivered.push({ record: outcome.delivered, endpointId: d.endpointId });
          pump();
          return;
        }
        // Failed and rescheduled: look again when it is due (a few ms late, so it is due by the database's comparison).
        retries.set(d.endpointId, outcome.next.getTime() + 5);
        arm();
        release(d.endpointId);
      },
      (err) => {
        // Its lease runs out and a sweep retakes it.
        log.warn('webhook delivery failed to record', { err, delivery: d.id });
        release(d.endpointId);
      },
    );
  };

  /** The next wanted endpoint with nothing in flight here; a wanted one in flight is noted for when its row is recorded. */
  const takeWanted = (): string | undefined => {
    for (const endpointId of wanted) {
      wanted.delete(endpointId);
      const here = inFlightEndpoints.get(endpointId) ?? leasing.get(endpointId);
      if (!here) return endpointId;
      here.recheck = true;
    }
    return undefined;
  };

  const leaseEnd = (now: Date) => new Date(now.getTime() + leaseMs(opts));

  /** Record a delivered row and lease its endpoint's next due row in the same statement: the place passes to that row. */
  const record = async (done: { record: DeliveredRecord; endpointId: string }) => {
    const entry = inFlightEndpoints.get(done.endpointId)!;
    entry.recheck = false;
    let db: Db;
    let next: LeasedDelivery | null;
    try {
      db = await getDb();
      const now = new Date();
      next = await recordDelivered(db, done.record, stopped ? null : { now, leaseUntil: leaseEnd(now) });
    } catch (err) {
      // Not recorded: the row stays leased until its lease runs out, then a sweep sends it again
      // (the same Webhook-Id: an idempotent receiver sees it once).
      release(done.endpointId);
      throw err;
    }
    if (next) start(db, next);
    else {
      inFlight--;
      inFlightEndpoints.delete(done.endpointId);
      // Told of a new row while the statement ran: it may have been committed after its snapshot.
      if (entry.recheck) wanted.add(done.endpointId);
    }
  };

  /** Lease the head of an endpoint with nothing in flight here, into the place reserved for it. */
  const leaseHead = async (endpointId: string, entry: Entry) => {
    let db: Db | undefined;
    let head: LeasedDelivery | null = null;
    try {
      db = await getDb();
      const now = new Date();
      head = await leaseEndpointHead(db, endpointId, now, leaseEnd(now), customerId);
    } finally {
      leasing.delete(endpointId);
      if (!head) inFlight--;
    }
    if (head) start(db!, head);
    else if (entry.recheck) wanted.add(endpointId);
  };

  /** Lease the due heads of every active endpoint, up to the `reserved` places. */
  const sweep = async (reserved: number) => {
    let db: Db | undefined;
    let leased: LeasedDelivery[] = [];
    try {
      db = await getDb();
      const now = new Date();
      leased = await leaseDueDeliveries(db, now, reserved, leaseEnd(now), customerId);
    } finally {
      sweeping = false;
      inFlight -= reserved - leased.length;
      pollAt = Date.now() + fallbackMs();
      arm();
    }
    for (const d of leased) start(db!, d);
    // A full sweep may have left due rows behind: sweep again once places are free.
    if (leased.length === reserved) sweepDue = true;
  };

  /**
   * Start the statements there is work for, up to MAX_STATEMENTS at once (PostgreSQL runs them
   * side by side on its pool; PGlite one after another): records first, then a due sweep, then
   * the wanted endpoints' heads, the leases only into free places (reserved before the statement).
   */
  const pump = () => {
    workerBeat('webhooks');
    while (statements < MAX_STATEMENTS) {
      // Each task undoes its own reservation when it fails (the database unreachable included).
      let task: () => Promise<void>;
      const done = delivered.shift();
      const free = stopped ? 0 : max - inFlight;
      if (done) task = () => record(done);
      else if (sweepDue && !sweeping && free > 0) {
        sweepDue = false;
        sweeping = true;
        inFlight += free;
        task = () => sweep(free);
      } else {
        const endpointId = free > 0 ? takeWanted() : undefined;
        if (endpointId === undefined) return;
        const entry = { recheck: false };
        leasing.set(endpointId, entry);
        inFlight++;
        task = () => leaseHead(endpointId, entry);
      }
      statements++;
      task()
        .catch((err: unknown) => {
          log.warn('webhook delivery pass failed', { err });
          pollSoon();
        })
        .finally(() => {
          statements--;
          pump();
        });
    }
  };

  /** A NOTIFY from the outbox (payload: the endpoint's id). */
  const announced = (endpointId: string) => {
    if (stopped) return;
    const here = inFlightEndpoints.get(endpointId) ?? leasing.get(endpointId);
    if (here) {
      here.recheck = true; // its head is in flight (or being leased): looked at again when that is done
      return;
    }
    wanted.add(endpointId);
    pump();
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
          if (live) {
            sweepDue = true;
            pump();
          } else pollSoon();
        },
        // Said once, not at every retry.
        cannotListenYet: (err) => log.warn('webhook worker cannot listen for new deliveries yet; polling until it can', { err, every_ms: fallbackMs() }),
      },
      RESUBSCRIBE_MS,
    );
  // Rows left from before a restart (or committed before the subscription) go out at once.
  pump();
  workerStarted('webhooks', Math.max(60_000, opts.pollMs * 3));
  return () => {
    stopped = true;
    workerStopped('webhooks');
    clearTimeout(timer);
    stopListening?.();
  };
}
