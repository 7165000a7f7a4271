import type { Db } from '@/db/client';
import { getConfig } from '@/server/config';
import { syncDueCalendars } from '@/server/domain/calendars/sync';
import { log } from '@/server/log';
import { workerBeat, workerStarted, workerStopped } from '@/server/observability/workers';

/**
 * Background sync of connected calendars (docs/calendars.md "Freshness"):
 * every CALENDAR_SYNC_INTERVAL_SECONDS, each provider calendar not synced
 * within that interval is synced. Instances coordinate through each
 * calendar's lease in the database, so one calendar syncs on one instance at
 * a time. 0 turns the loop off (requests still sync a stale mirror first).
 */
export function startCalendarSync(getDb: () => Promise<Db>): () => void {
  const seconds = getConfig().calendarSyncIntervalSeconds;
  if (!(seconds > 0)) return () => {};
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    workerBeat('calendar_sync');
    try {
      const results = await syncDueCalendars(await getDb(), new Date(), seconds * 1000);
      for (const [id, r] of Object.entries(results)) if (r.outcome === 'failed' || r.outcome === 'reauth_required') log.warn('calendar sync failed', { calendarId: id, outcome: r.outcome, error: r.error });
    } catch (err) {
      log.warn('calendar sync round failed', { err });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(tick, Math.max(5, seconds / 4) * 1000);
  timer.unref?.();
  // A round syncs calendars one after another, each bounded by CALENDAR_SYNC_TIMEOUT_MS (50 per round).
  workerStarted('calendar_sync', Math.max(5 * 60_000, seconds * 4000));
  return () => {
    clearInterval(timer);
    workerStopped('calendar_sync');
  };
}
