import { closeDb, getDb, getDbHandle } from '@/server/db';
import { startSweeper, SWEEP_TASKS } from '@/server/sweeper';
import { startCalendarSync } from '@/server/calendarSync';
import { isPgliteLockedError } from '@/db/drivers/pgliteLocked';
import { getConfig } from '@/server/config';
import { mailSetupNotice } from '@/server/domain/email';
import { getRateLimiter } from '@/server/rateLimit';
import { log } from '@/server/log';
import { startWebhookWorker } from '@/server/domain/webhooks/worker';
import { WEBHOOK_OUTBOX_CHANNEL } from '@/db/hot/webhooks';
import { REMINDERS_CHANNEL } from '@/db/hot/reminders';
import { startReminderWorker } from '@/server/domain/reminders/worker';
import { enqueueNotification } from '@/server/domain/notificationService';
import { startMetricsServer } from '@/server/http/metrics';
import { installDatabaseGauges } from '@/server/observability/gauges';
import { tracingEnabled } from '@/server/observability/tracing';

/**
 * scripts/serve.mjs (plain JavaScript, outside the bundle) finds the shutdown
 * hook under this global symbol and awaits it after the HTTP server has
 * stopped accepting requests.
 */
const SHUTDOWN = Symbol.for('agent-scheduler.shutdown');
/** Set by scripts/serve.mjs: stop the process on an error the server cannot recover from. */
const FATAL = Symbol.for('agent-scheduler.fatal');
/**
 * Called by scripts/serve.mjs on every request that may write (not GET or HEAD): the idle
 * background loops come back to their busy pace (docs/operations.md "Idle").
 */
const ACTIVITY = Symbol.for('agent-scheduler.activity');
type GlobalWithShutdown = typeof globalThis & { [SHUTDOWN]?: () => Promise<void>; [FATAL]?: (err: unknown) => void; [ACTIVITY]?: () => void };

/** Open the database (applying migrations) and connect the rate limiter; called from instrumentation.ts. */
export async function startServices(): Promise<void> {
  (globalThis as GlobalWithShutdown)[SHUTDOWN] = stopServices;

  const config = getConfig();
  const started = Date.now();
  try {
    const handle = await getDbHandle();
    log.info('database ready', {
      driver: handle.driver,
      location: config.databaseUrl ? redactUrl(config.databaseUrl) : config.dbDriver === 'pglite-memory' ? 'memory' : config.pgliteDir,
      ms: Date.now() - started,
    });
  } catch (err) {
    if (isPgliteLockedError(err)) {
      // Two processes on one embedded database would corrupt it: refuse to start.
      log.error('database unavailable', { err });
      const fatal = (globalThis as GlobalWithShutdown)[FATAL];
      if (fatal) fatal(err);
      throw err;
    }
    // PostgreSQL may come up later: keep serving (every request retries, /api/health says 503).
    log.error('database unavailable at start; requests will retry', { err });
  }

  // Shared limits from the first request on: wait (bounded, server/rateLimit/index.ts) for the
  // Redis connection before serving, and say so when it is not there.
  const limiter = getRateLimiter();
  const reach = await limiter.ping();
  if (reach.ok) log.info('rate limiter ready', { backend: limiter.backend, shared: limiter.backend !== 'memory' });
  else log.warn('rate limiter: shared store unreachable at start; limits are per instance until it answers', { backend: limiter.backend, error: reach.error });

  // Where mail goes, and whether its live links reach the log (production withholds them unless MAIL_LOG_LINKS=1).
  const mail = mailSetupNotice(config);
  log[mail.level](mail.msg);

  // Expire holds past their time to live (notifying agents) and drop old idempotency keys.
  stopSweeper?.();
  const sweeper = (stopSweeper = startSweeper(getDb, SWEEP_TASKS));
  // Keep connected calendars' mirrors fresh (docs/calendars.md).
  stopCalendarSync?.();
  const calendarSync = (stopCalendarSync = startCalendarSync(getDb));
  // Both rest while the server is idle and come back on the next write request.
  (globalThis as GlobalWithShutdown)[ACTIVITY] = () => {
    sweeper.nudge();
    calendarSync.nudge();
  };

  // Deliver the webhook outbox (docs/webhooks.md).
  stopWebhooks?.();
  stopWebhooks = startWebhookWorker(getDb, {
    allowPrivate: config.outboundAllowPrivate,
    retryBaseMs: config.webhookRetryBaseMs,
    pollMs: config.webhookPollMs,
    maxInFlight: config.webhookMaxInFlight,
    notifyDisabled: enqueueNotification,
    // Woken on commit of new outbox rows; polling every WEBHOOK_POLL_MS is only the fallback.
    listen: (onNotify, onState) => getDbHandle().then((h) => h.listen(WEBHOOK_OUTBOX_CHANNEL, onNotify, onState)),
  });

  // Send reminders when due (docs/reliability.md "Reminders"): asleep until the next one, woken on commit of new ones.
  stopReminders?.();
  stopReminders = startReminderWorker(getDb, {
    pollMs: config.reminderPollMs,
    listen: (onNotify, onState) => getDbHandle().then((h) => h.listen(REMINDERS_CHANNEL, onNotify, onState)),
  });

  // Metrics (docs/operations.md "Metrics"): the gauges read at scrape, and the separate listener when METRICS_PORT is set.
  installDatabaseGauges();
  if (config.metricsPort !== undefined && !stopMetrics) stopMetrics = startMetricsServer(config.metricsPort);
}

let stopSweeper: (() => void) | undefined;
let stopCalendarSync: (() => void) | undefined;
let stopWebhooks: (() => void) | undefined;
let stopReminders: (() => void) | undefined;
let stopMetrics: (() => Promise<void>) | undefined;

/** Close the rate limiter's connection and the database (flushes and unlocks the embedded PGlite). */
export async function stopServices(): Promise<void> {
  stopSweeper?.();
  stopCalendarSync?.();
  stopWebhooks?.();
  stopReminders?.();
  const closing = stopMetrics?.();
  stopMetrics = undefined;
  const results = await Promise.allSettled([getRateLimiter().close(), closeDb(), closing]);
  // Export the spans still buffered (docs/operations.md "Traces"). The SDK is loaded only when
  // tracing was started (instrumentation.ts; docs/benchmarks/history/2026-11-26-server-memory.md).
  if (tracingEnabled()) results.push(...(await Promise.allSettled([import('@/server/observability/otel').then((m) => m.stopTracing())])));
  for (const r of results) if (r.status === 'rejected') log.error('shutdown step failed', { err: r.reason });
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}
