import type { Db } from '@/db/client';
import { getConfig } from '@/server/config';
import { nextCalendarDue, syncDueCalendars } from '@/server/domain/calendars/sync';
import { log } from '@/server/log';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';
import { startIdleTimer } from '@/server/idleTimer';

/** The longest pause of the sync loop when no calendar is due (docs/operations.md "Idle"). */
const CALENDAR_SYNC_MAX_IDLE_MS = 5 * 60_000;

/**
 * Background sync of connected calendars (docs/calendars.md "Freshness"): each provider calendar
 * not synced within CALENDAR_SYNC_INTERVAL_SECONDS is synced. A round looks every quarter of the
 * interval (at least 5 s) while it finds calendars to sync; otherwise it sleeps until the next
 * calendar falls due, at most CALENDAR_SYNC_MAX_IDLE_MS with none connected, and a write request
 * (`nudge()`, e.g. a calendar just connected) brings it back (server/idleTimer.ts). Instances
 * coordinate through each calendar's lease in the database, so one calendar syncs on one
 * instance at a time. 0 turns the loop off (requests still sync a stale mirror first).
 */
export function startCalendarSync(getDb: () => Promise<Db>): (() => void) & { nudge(): void } {
  const seconds = getConfig().calendarSyncIntervalSeconds;
  if (!(seconds > 0)) return Object.assign(() => {}, { nudge: () => {} });
  const intervalMs = seconds * 1000;
  const timer = startIdleTimer(
    async () => {
      workerBeat('calendar_sync');
      try {
        const db = await getDb();
        const results = await syncDueCalendars(db, new Date(), intervalMs);
        for (const [id, r] of Object.entries(results)) if (r.outcome === 'failed' || r.outcome === 'reauth_required') log.warn('calendar sync failed', { calendarId: id, outcome: r.outcome, error: r.error });
        return { busy: Object.keys(results).length > 0, dueAt: await nextCalendarDue(db, intervalMs) };
      } catch (err) {
        log.warn('calendar sync round failed', { err });
        return { busy: true };
      }
    },
    { baseMs: Math.max(5, seconds / 4) * 1000, maxMs: CALENDAR_SYNC_MAX_IDLE_MS },
  );
  // A round syncs calendars one after another, each bounded by CALENDAR_SYNC_TIMEOUT_MS (50 per round).
  workerStarted('calendar_sync', Math.max(5 * 60_000, seconds * 4000, CALENDAR_SYNC_MAX_IDLE_MS * 2));
  return Object.assign(
    () => {
      timer.stop();
      workerStopped('calendar_sync');
    },
    { nudge: timer.nudge },
  );
}
