import { mirrorAges, webhookBacklog } from '@/db/hot/observability';
import { getConfig } from '@/server/config';
import { getDb } from '@/server/db';
import { beforeScrape, metrics, updatePoolGauges } from './metrics';

const INSTALLED = Symbol.for('agent-scheduler.metrics.gauges');
type Flag = { [INSTALLED]?: boolean };

/**
 * Gauges read at each scrape (docs/operations.md "Metrics"): the webhook outbox's depth and
 * oldest pending row, the age of each provider's stalest mirror (shared state: every instance
 * reports the same values; aggregate with max), and this instance's pool figures. Installed
 * once per process, by start-up and by the /metrics route, whichever comes first.
 */
export function installDatabaseGauges(): void {
  const g = globalThis as Flag;
  if (g[INSTALLED]) return;
  g[INSTALLED] = true;
  beforeScrape(async () => {
    const config = getConfig();
    updatePoolGauges(config.databaseUrl ? config.dbPoolMax : 1);
    const m = metrics();
    const db = await getDb();
    const now = new Date();
    const [backlog, ages] = await Promise.all([
      webhookBacklog(db, now).catch(() => (m.scrapeErrors.inc({ gauge: 'webhook_backlog' }), null)),
      mirrorAges(db, now).catch(() => (m.scrapeErrors.inc({ gauge: 'mirror_age' }), null)),
    ]);
    if (backlog) {
      m.webhookQueueDepth.set(backlog.depth);
      m.webhookOldestPending.set(backlog.oldestSeconds);
    }
    if (ages) {
      m.calendarMirrorAge.reset();
      for (const a of ages) m.calendarMirrorAge.set({ provider: a.provider }, a.ageSeconds);
    }
  });
}
