import type { Db } from '@/db/client';
import { nextHoldExpiry } from '@/server/domain/claims';
import { sweepDueHolds } from '@/server/domain/waitlist/sweep';
import { sweepExpiredProposals } from '@/server/domain/publicScheduling/review';
import { sweepKeyRecords } from '@/db/hot/idempotency';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { sweepDeliveredWebhooks } from '@/server/domain/webhooks/delivery';
import { log } from '@/server/log';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';
import { startIdleTimer } from '@/server/idleTimer';

/**
 * A sweep task: `run` returns how much it did (0: nothing to do); `nextDue`, when given, says when
 * its next known work falls due (the idle sweeper wakes by then).
 */
export type SweepTask = { name: string; run(db: Db, now: Date): Promise<number>; nextDue?(db: Db, now: Date): Promise<Date | null> };

/** The longest pause of an idle sweeper (docs/operations.md "Idle"). */
const SWEEP_MAX_IDLE_MS = 5 * 60_000;

/**
 * Tidies up in the background (holds past their time to live, unverified proposals past 24 h,
 * idempotency keys past retention, ...). Correctness never depends on it: every expiry is also
 * judged against the clock where the record is read. Tasks run one after another; a failing
 * task is logged and the rest go on. Every `intervalMs` while rounds find work; while they find
 * none the pause doubles up to SWEEP_MAX_IDLE_MS, but the sweeper still wakes when the next
 * active hold expires, and `nudge()` (a write request in this process) brings it back to
 * `intervalMs` (server/idleTimer.ts).
 */
export function startSweeper(getDb: () => Promise<Db>, tasks: SweepTask[], intervalMs = 15_000, maxIdleMs = SWEEP_MAX_IDLE_MS): (() => void) & { nudge(): void } {
  const timer = startIdleTimer(
    async () => {
      workerBeat('sweeper');
      let done = 0;
      let dueAt: Date | null = null;
      try {
        const db = await getDb();
        for (const task of tasks) {
          try {
            done += await task.run(db, new Date());
            const due = await task.nextDue?.(db, new Date());
            if (due && (!dueAt || due < dueAt)) dueAt = due;
          } catch (err) {
            done++; // a failing task is retried at the busy pace
            log.warn('sweep task failed', { task: task.name, err });
          }
        }
      } catch (err) {
        done++;
        log.warn('sweeper could not reach the database', { err });
      }
      return { busy: done > 0, dueAt };
    },
    { baseMs: intervalMs, maxMs: maxIdleMs },
  );
  // A round still running (a slow task) delays the next: stalled only after several of the longest pauses.
  workerStarted('sweeper', Math.max(60_000, intervalMs * 8, maxIdleMs * 2));
  return Object.assign(
    () => {
      timer.stop();
      workerStopped('sweeper');
    },
    { nudge: timer.nudge },
  );
}

const invitationsSent = (r: { requests: number; cancels: number; updates: number }) => r.requests + r.cancels + r.updates;

/** What the server sweeps: holds (sending hold.expired; offering their time to the waitlist), unverified proposals, idempotency keys, booking invitations, delivered webhook rows after 30 days. */
export const SWEEP_TASKS: SweepTask[] = [
  { name: 'expire holds', run: sweepDueHolds, nextDue: (db) => nextHoldExpiry(db) },
  { name: 'expire unverified proposals', run: (db, now) => sweepExpiredProposals(db, now) },
  { name: 'drop idempotency keys past retention', run: (db, now) => sweepKeyRecords(db, now) },
  { name: 'send booking invitations', run: (db, now) => sendDueInvitations(db, now).then(invitationsSent) },
  { name: 'drop delivered webhook rows past retention', run: (db, now) => sweepDeliveredWebhooks(db, now) },
];
