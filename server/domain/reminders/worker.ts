import type { Db } from '@/db/client';
import { leaseDueReminders, nextReminderDue } from '@/db/hot/reminders';
import { log } from '@/server/log';
import { stayListening, type ChannelSubscription } from '../channel';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';
import { sendReminder, type ReminderOutcome } from './send';


/** Reminders leased per pass; a full batch is followed at once by another pass. */
const BATCH = 50;
/**
 * A leased reminder is another worker's to take over this long after a crash. Longer than the
 * mail of one reminder takes (each message at most 20 s against a hanging mail server,
 * server/domain/email/mailer.ts), short enough that a crash delays a reminder by half a minute.
 */
const REMINDER_LEASE_MS = 30_000;
/** How often the worker looks while its notification subscription is down. */
const UNLISTENED_POLL_MS = 1_000;
/** A subscription that could not be made is tried again this much later. */
const RESUBSCRIBE_MS = 5_000;
/** The timer fires this much after a due time, so the row is due by the database's clock too. */
const LATE_MS = 2;

type ReminderSubscription = ChannelSubscription;

export type ReminderWorkerOptions = {
  /** The fallback poll while `listen` is live (a reminder written by a process that could not announce it). */
  pollMs: number;
  /** Woken on commit of a new or moved reminder, the payload its due time (server/startup.ts: the database's NOTIFY subscription on REMINDERS_CHANNEL). */
  listen?: ReminderSubscription;
  /** The clock (tests). */
  now?: () => Date;
  /** Only this customer's reminders (tests and the bench sharing a database; the server passes none). */
  customerId?: string;
  /** Told of each reminder handled (tests, the bench). */
  onOutcome?: (outcome: ReminderOutcome, reminderId: string) => void;
};

/**
 * The reminder loop of a server process (docs/reliability.md "Reminders"). One timer, set to the
 * next due reminder (the earliest due time, or the earliest lease to run out, read from the
 * database after each pass) or the fallback poll, whichever is sooner; a NOTIFY on commit of a
 * new or moved reminder brings the timer forward to its due time. So an idle server with no
 * reminder due sleeps, and a due reminder is leased within milliseconds of its due time. A pass
 * leases the due rows in batches (SKIP LOCKED: two instances split them) and sends each batch's
 * reminders at once; each is recorded exactly once (server/domain/reminders/send.ts). Runs in
 * every instance.
 */
export function startReminderWorker(getDb: () => Promise<Db>, opts: ReminderWorkerOptions): () => void {
  const now = opts.now ?? (() => new Date());
  let stopped = false;
  let running = false;
  let again = false;
  let listening = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;

  const fallbackMs = () => (listening ? opts.pollMs : Math.min(opts.pollMs, UNLISTENED_POLL_MS));
  const wakeAt = (at: number) => {
    if (stopped || at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      void pass();
    }, Math.max(0, at - Date.now()));
    timer.unref?.();
  };

  const pass = async (): Promise<void> => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    workerBeat('reminders');
    let next: number | null = null;
    try {
      const db = await getDb();
      do {
        again = false;
        const at = now();
        const leased = await leaseDueReminders(db, at, BATCH, new Date(at.getTime() + REMINDER_LEASE_MS), opts.customerId ?? null);
        await Promise.all(
          leased.map((r) =>
            sendReminder(db, r, now).then(
              (outcome) => opts.onOutcome?.(outcome, r.id),
              (err) => log.warn('reminder failed to send or record; retried when its lease runs out', { err, reminder: r.id }),
            ),
          ),
        );
        if (leased.length === BATCH) again = true;
      } while (again && !stopped);
      const due = await nextReminderDue(db, opts.customerId ?? null);
      next = due ? due.getTime() + LATE_MS : null;
    } catch (err) {
      log.warn('reminder pass failed', { err });
    } finally {
      running = false;
      const fallback = Date.now() + fallbackMs();
      wakeAt(next === null ? fallback : Math.min(next, fallback));
    }
  };

  /** A NOTIFY: a pending reminder due at `payload` was committed. */
  const announced = (payload: string) => {
    const due = Date.parse(payload);
    if (Number.isNaN(due)) return;
    if (due <= Date.now()) void pass();
    else wakeAt(due + LATE_MS);
  };

  let stopListening: (() => void) | undefined;
  if (opts.listen)
    stopListening = stayListening(
      opts.listen,
      {
        notify: announced,
        state: (live) => {
          listening = live;
          // Back (or first) on the channel: reminders committed while it was down were not announced.
          if (live) void pass();
          else wakeAt(Date.now() + fallbackMs());
        },
        // Said once, not at every retry.
        cannotListenYet: (err) => log.warn('reminder worker cannot listen for new reminders yet; polling until it can', { err, every_ms: fallbackMs() }),
      },
      RESUBSCRIBE_MS,
    );
  // Reminders due while no worker ran (a restart) go out at once.
  void pass();
  workerStarted('reminders', Math.max(60_000, opts.pollMs * 3));
  return () => {
    stopped = true;
    workerStopped('reminders');
    clearTimeout(timer);
    stopListening?.();
  };
}
