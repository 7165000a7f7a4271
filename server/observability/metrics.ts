import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric the service exports (docs/operations.md "Metrics"), in one registry served at
 * GET /metrics (app/metrics/route.ts, METRICS_TOKEN) or on METRICS_PORT (server/observability/
 * metricsServer.ts). Imports nothing of the service, so every layer may count into it
 * (domain included). Kept on globalThis: Next bundles instrumentation.ts (the workers) and the
 * routes apart, and both must count into the one registry the scrape reads.
 *
 * Hot paths use pre-bound children (`labels(...)` once per label set, cached) so a count is a
 * map lookup and an addition.
 */
/** How often the nodejs_eventloop_lag_* histogram samples the event loop's delay. */
const EVENT_LOOP_SAMPLE_MS = 100;
const SECONDS_FAST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SECONDS_SLOW = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

function create() {
  const registry = new Registry();
  // The event-loop delay is sampled by a timer every EVENT_LOOP_SAMPLE_MS: every 20 ms it alone
  // cost about 0.2 % of a core on an idle server (docs/operations.md "Idle").
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'scheduler_http_requests_total',
      help: 'Requests answered by /v1, /public and MCP operations, tRPC procedures, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'scheduler_http_request_duration_seconds',
      help: 'Time from the request reaching the operation wrapper to its answer, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: SECONDS_FAST,
      registers,
    }),
    decisions: new Counter({
      name: 'scheduler_decisions_total',
      help: 'Claim decisions (book, hold, confirm, proposal approve/decline) by action, outcome (accept, reject, error) and reason code.',
      labelNames: ['action', 'outcome', 'reason'] as const,
      registers,
    }),
    arbitrations: new Counter({
      name: 'scheduler_arbitrations_total',
      help: 'Arbitrations run by claim decisions, by action; a confirm whose hold decision stands runs none (docs/arbitration.md "Confirm: when the hold\'s decision stands").',
      labelNames: ['action'] as const,
      registers,
    }),
    confirms: new Counter({
      name: 'scheduler_confirms_total',
      help: 'Hold confirms that reached a decision, by `arbitration`: stood (the hold decision stood, promoted without arbitrating) or rerun (arbitrated again).',
      labelNames: ['arbitration'] as const,
      registers,
    }),
    claimQueueWait: new Histogram({
      name: 'scheduler_claim_queue_wait_seconds',
      help: 'Time a claim waited in the in-process queue of its owner before its transaction began.',
      buckets: SECONDS_FAST,
      registers,
    }),
    claimLockWait: new Histogram({
      name: 'scheduler_claim_lock_wait_seconds',
      help: 'Time of the statement that takes the owner row lock in a claim transaction (waiting for another instance holding it).',
      buckets: SECONDS_FAST,
      registers,
    }),
    preemptions: new Counter({
      name: 'scheduler_preemptions_total',
      help: 'Bookings or holds preempted by a higher-priority claim.',
      registers,
    }),
    idempotentReplays: new Counter({
      name: 'scheduler_idempotent_replays_total',
      help: 'Requests answered from a stored Idempotency-Key answer.',
      registers,
    }),
    idempotencyConflicts: new Counter({
      name: 'scheduler_idempotency_conflicts_total',
      help: 'Idempotency-Key refusals (key reused with another request, or the first request still in progress), by error code.',
      labelNames: ['code'] as const,
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'scheduler_rate_limit_refusals_total',
      help: 'Requests refused by a rate limit, by policy (server/rateLimit RATE_LIMITS: global, bookings, signInIp, signInAccount, ...).',
      labelNames: ['policy'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'scheduler_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, failed).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookLag: new Histogram({
      name: 'scheduler_webhook_delivery_lag_seconds',
      help: 'Time from an event entering the webhook outbox to its successful delivery.',
      buckets: SECONDS_SLOW,
      registers,
    }),
    webhookQueueDepth: new Gauge({
      name: 'scheduler_webhook_queue_depth',
      help: 'Webhook deliveries pending in the outbox (all instances; read from the database at scrape).',
      registers,
    }),
    webhookOldestPending: new Gauge({
      name: 'scheduler_webhook_oldest_pending_seconds',
      help: 'Age of the oldest pending webhook delivery (read from the database at scrape).',
      registers,
    }),
    calendarSyncRuns: new Counter({
      name: 'scheduler_calendar_sync_runs_total',
      help: 'Provider calendar syncs by provider and outcome (synced, busy, failed, reauth_required).',
      labelNames: ['provider', 'outcome'] as const,
      registers,
    }),
    calendarSyncErrors: new Counter({
      name: 'scheduler_calendar_sync_errors_total',
      help: 'Provider calendar syncs that failed (failed or reauth_required), by provider.',
      labelNames: ['provider'] as const,
      registers,
    }),
    calendarMirrorAge: new Gauge({
      name: 'scheduler_calendar_mirror_age_seconds',
      help: 'Age of the stalest active provider mirror (time since its last successful sync), by provider (read from the database at scrape).',
      labelNames: ['provider'] as const,
      registers,
    }),
    mail: new Counter({
      name: 'scheduler_mail_messages_total',
      help: 'Outgoing mail by outcome (sent over SMTP, failed, logged when SMTP_URL is unset).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    dbPoolMax: new Gauge({
      name: 'scheduler_db_pool_max',
      help: 'Configured size of the PostgreSQL connection pool (DB_POOL_MAX) of this instance.',
      registers,
    }),
    dbTransactions: new Gauge({
      name: 'scheduler_db_transactions_in_flight',
      help: 'Claim transactions holding a pooled connection now (in use); above scheduler_db_pool_max they wait for one.',
      registers,
    }),
    dbPoolWaiting: new Gauge({
      name: 'scheduler_db_pool_waiting',
      help: 'Claim transactions waiting for a pooled connection (in flight beyond the pool size).',
      registers,
    }),
    admissionActive: new Gauge({
      name: 'scheduler_http_admission_active',
      help: 'Requests inside the application now, at most MAX_CONCURRENT_REQUESTS (scripts/admission.mjs).',
      registers,
      collect() {
        this.set(admission()?.stats().active ?? 0);
      },
    }),
    admissionWaiting: new Gauge({
      name: 'scheduler_http_admission_waiting',
      help: 'Requests waiting for the admission limit (MAX_CONCURRENT_REQUESTS) before the application takes them.',
      registers,
      collect() {
        this.set(admission()?.stats().waiting ?? 0);
      },
    }),
    scrapeErrors: new Counter({
      name: 'scheduler_metrics_scrape_errors_total',
      help: 'Gauges that could not be read from the database at scrape, by gauge.',
      labelNames: ['gauge'] as const,
      registers,
    }),
  };
}

/** scripts/serve.mjs's admission limit (plain JavaScript outside the bundle) puts itself here; absent under tests and `next dev` without it. */
const ADMISSION = Symbol.for('agent-scheduler.admission');
type Admission = { stats(): { active: number; waiting: number } };
const admission = () => (globalThis as Record<symbol, Admission | undefined>)[ADMISSION];

export type Metrics = ReturnType<typeof create>;
const KEY = Symbol.for('agent-scheduler.metrics');
type Holder = { metrics?: Metrics; beforeScrape: (() => Promise<void>)[]; transactions: number };
const holder: Holder = ((globalThis as Record<symbol, Holder | undefined>)[KEY] ??= { beforeScrape: [], transactions: 0 });

/** The process's metrics (created on first use). */
export function metrics(): Metrics {
  return (holder.metrics ??= create());
}

/** Every metric name the registry exports (docs/grafana-dashboard.json is checked against it). */
export function metricNames(): string[] {
  return metrics().registry.getMetricsAsArray().map((m) => m.name);
}

/**
 * Work to run before a scrape renders (gauges read from the database: server/observability/
 * gauges.ts). Registered once per process; a failing step counts scrape errors and the rest goes on.
 */
export function beforeScrape(step: () => Promise<void>): void {
  holder.beforeScrape.push(step);
}

/** The Prometheus text exposition of every metric (and its content type). */
export async function renderMetrics(): Promise<{ contentType: string; text: string }> {
  const m = metrics();
  await Promise.all(holder.beforeScrape.map((s) => s().catch(() => m.scrapeErrors.inc({ gauge: 'before_scrape' }))));
  return { contentType: m.registry.contentType, text: await m.registry.metrics() };
}

// ---- boundary helpers (cheap: cached children) -------------------------------------------------

type Child = { inc(n?: number): void };
type Observer = { observe(v: number): void };
const requestChildren = new Map<string, { count: Child; duration: Observer }>();

/** One answered request: its route template (never the raw path), method, status and duration. */
export function recordRequest(route: string, method: string, status: number, seconds: number): void {
  const key = `${route} ${method} ${status}`;
  let c = requestChildren.get(key);
  if (!c) {
    const labels = { route, method, status: String(status) };
    const m = metrics();
    c = { count: m.httpRequests.labels(labels), duration: m.httpDuration.labels(labels) };
    requestChildren.set(key, c);
  }
  c.count.inc();
  c.duration.observe(seconds);
}

const decisionChildren = new Map<string, Child>();
/** One claim decision: `action` (booking.create, hold.create, hold.confirm, proposal.approve, ...), outcome, reason code. */
export function recordDecision(action: string, outcome: 'accept' | 'reject' | 'error', reason: string): void {
  const key = `${action}|${outcome}|${reason}`;
  let c = decisionChildren.get(key);
  if (!c) decisionChildren.set(key, (c = metrics().decisions.labels({ action, outcome, reason })));
  c.inc();
}

const arbitrationChildren = new Map<string, Child>();
/** One arbitration run by a claim decision (runClaim), by its action. */
export function recordArbitration(action: string): void {
  let c = arbitrationChildren.get(action);
  if (!c) arbitrationChildren.set(action, (c = metrics().arbitrations.labels({ action })));
  c.inc();
}

const confirmChildren = new Map<boolean, Child>();
/** A confirm's decision: whether its hold's decision stood or arbitration ran again. */
export function recordConfirm(stood: boolean): void {
  let c = confirmChildren.get(stood);
  if (!c) confirmChildren.set(stood, (c = metrics().confirms.labels({ arbitration: stood ? 'stood' : 'rerun' })));
  c.inc();
}

/** Claim transactions holding (or waiting for) a pooled connection: +1 on begin, -1 on end. */
export function trackTransaction(delta: 1 | -1): void {
  holder.transactions += delta;
}

/** Set the pool gauges from the configured pool size (called before a scrape). */
export function updatePoolGauges(poolMax: number): void {
  const m = metrics();
  const n = holder.transactions;
  m.dbPoolMax.set(poolMax);
  m.dbTransactions.set(Math.min(n, poolMax));
  m.dbPoolWaiting.set(Math.max(0, n - poolMax));
}

/** Seconds since `startNs` (process.hrtime.bigint()). */
export function secondsSince(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}
