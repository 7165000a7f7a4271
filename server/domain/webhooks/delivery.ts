import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';
import { leaseDueDeliveries, recordDelivered, type DeliveredRecord, type LeasedDelivery } from '@/db/hot/webhooks';
import { outboundFetch, OutboundRefusedError, type OutboundOptions } from '../outbound/guard';
import { withSpan } from '@/server/observability/tracing';
import { openWebhookSecret } from './secretStore';
import { signatureHeaders } from './signature';
import { metrics } from '@/server/observability/metrics';

/** An endpoint is disabled after this many failed attempts in a row (docs/webhooks.md "Retries"). */
const DISABLE_AFTER_CONSECUTIVE_FAILURES = 15;
/** Longest wait between two attempts of one delivery. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A receiver has this long to answer. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** A leased row is retaken after this (the attempt's process died mid-request). */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000;
/** The lease of a row attempted with these options: the receiver's time plus a margin. */
export function leaseMs(opts: Pick<DeliveryOptions, 'timeoutMs'>): number {
  return (opts.timeoutMs ?? DELIVERY_TIMEOUT_MS) + LEASE_MS - DELIVERY_TIMEOUT_MS;
}
const MAX_ERROR_TEXT = 500;

/**
 * Tells the agent that an endpoint was disabled (inside the transaction that disabled it).
 * Handed in by the caller (server/startup.ts passes the notification queue's), so this module
 * does not import the notification service, which itself writes into the webhook outbox: the
 * dependency runs one way, notifications -> webhooks/outbox (docs/webhooks.md "Retries").
 */
type EndpointDisabledNotice = (
  tx: Executor,
  n: { customerId: string; agentId: string; kind: 'webhook.disabled'; data: Record<string, unknown>; now: Date },
) => Promise<void>;

export type DeliveryOptions = {
  allowPrivate: boolean;
  retryBaseMs: number;
  notifyDisabled: EndpointDisabledNotice;
  disableAfter?: number;
  /** Rows leased per pass (one per endpoint at most). */
  batch?: number;
  random?: () => number;
  /** The outbound guard's resolver (tests pass a stub). */
  resolve?: OutboundOptions['resolve'];
  /** The receiver's time to answer (default DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Only this customer's endpoints (a drain of one customer, as the tests drive it); the worker delivers every customer's. */
  customerId?: string;
};

/** Exponential backoff with jitter: base * 2^(attempt-1), capped, times a random factor in [0.5, 1). */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exp = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(30, attempt - 1));
  return Math.round(exp * (0.5 + random() / 2));
}

type AttemptResult = { ok: boolean; status: number | null; error: string | null };

/**
 * POST the body with its signature through the outbound guard (docs/reliability.md "Outbound
 * requests"); 2xx is success, anything else (a redirect included: none is followed) or no
 * answer in time a failure. A fresh connection per attempt.
 */
async function attemptDelivery(d: LeasedDelivery, opts: Pick<DeliveryOptions, 'allowPrivate' | 'resolve' | 'timeoutMs'>, now: Date): Promise<AttemptResult> {
  let secret: string;
  try {
    secret = openWebhookSecret(d.secret);
  } catch {
    // Sealed under a key this instance does not have (CALENDAR_SECRET_KEYS): a failed attempt, retried later.
    return { ok: false, status: null, error: 'signing secret cannot be opened with the configured keys' };
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'agent-scheduler-webhooks/1',
    ...signatureHeaders(secret, d.id, d.body, now),
  };
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const send = outboundFetch({ allowPrivate: opts.allowPrivate, resolve: opts.resolve, purpose: 'webhook' });
  try {
    const res = await send(d.url, { method: 'POST', headers, body: d.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}` };
  } catch (err) {
    const e = err as Error;
    const error = err instanceof OutboundRefusedError ? e.message : e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : String(e.message);
    return { ok: false, status: null, error: error.slice(0, MAX_ERROR_TEXT) };
  }
}

/**
 * Record a failed attempt: rescheduled with backoff, and the endpoint disabled after too many
 * failures in a row. Returns when the row is due again.
 */
async function recordFailure(db: Db, d: LeasedDelivery, result: AttemptResult, opts: DeliveryOptions, now: Date): Promise<Date> {
  const next = new Date(now.getTime() + retryDelayMs(d.attempts, opts.retryBaseMs, opts.random));
  await db.transaction(async (tx) => {
    await tx
      .update(webhookDeliveries)
      .set({ nextAttemptAt: next, leaseUntil: null, lastStatus: result.status, lastError: result.error })
      .where(eq(webhookDeliveries.id, d.id));
    const [ep] = await tx
      .update(webhookEndpoints)
      .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
      .where(eq(webhookEndpoints.id, d.endpointId))
      .returning();
    if (!ep || ep.status !== 'active' || ep.consecutiveFailures < (opts.disableAfter ?? DISABLE_AFTER_CONSECUTIVE_FAILURES)) return;
    const reason = `${ep.consecutiveFailures} consecutive failed deliveries; last: ${result.error ?? 'unknown'}`;
    const [disabled] = await tx
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledAt: now, disabledReason: reason, updatedAt: now })
      .where(and(eq(webhookEndpoints.id, ep.id), eq(webhookEndpoints.status, 'active')))
      .returning();
    // The customer is told through the agent's notification queue (and its other endpoints subscribed to it).
    if (disabled) {
      await opts.notifyDisabled(tx, {
        customerId: ep.customerId,
        agentId: ep.agentId,
        kind: 'webhook.disabled',
        data: { webhook_id: ep.id, url: ep.url, consecutive_failures: ep.consecutiveFailures, reason },
        now,
      });
    }
  });
  return next;
}

/** What an attempt came to: delivered (the record to write, unless it is written already) or failed: recorded, due again at `next`. */
export type AttemptOutcome = { delivered: DeliveredRecord; next: null } | { delivered: null; next: Date };

/**
 * Attempt one leased row. A failure is recorded here (rescheduled, maybe the endpoint disabled);
 * a success is recorded here too unless `recordSuccess` is false: the server's worker records
 * its delivered rows itself, each with the lease of its endpoint's next row (./worker.ts).
 */
export async function attemptLeased(db: Db, d: LeasedDelivery, opts: DeliveryOptions, clock: () => Date = () => new Date(), recordSuccess = true): Promise<AttemptOutcome> {
  // Its span (docs/operations.md "Traces"): the attempt's request and the statements recording it.
  return withSpan('webhook.deliver', { 'webhook.delivery_id': d.id, 'webhook.endpoint_id': d.endpointId, 'webhook.kind': d.kind, 'webhook.attempt': d.attempts }, async (span): Promise<AttemptOutcome> => {
    const result = await attemptDelivery(d, opts, clock());
    span.setAttributes({ outcome: result.ok ? 'delivered' : 'failed', ...(result.status !== null ? { 'http.response.status_code': result.status } : {}) });
    const now = clock();
    if (!result.ok) {
      const next = await recordFailure(db, d, result, opts, now);
      metrics().webhookDeliveries.inc({ outcome: 'failed' });
      return { delivered: null, next };
    }
    const delivered = { id: d.id, status: result.status, at: now };
    // One statement, no transaction: the row and its endpoint's failure count (db/hot/webhooks.ts).
    if (recordSuccess) await recordDelivered(db, delivered);
    const m = metrics();
    m.webhookDeliveries.inc({ outcome: 'delivered' });
    // Lag: from the event entering the outbox to its delivery, retries included.
    m.webhookLag.observe(Math.max(0, now.getTime() - d.createdAt.getTime()) / 1000);
    return { delivered, next: null };
  });
}

/**
 * One pass, awaited whole: lease the due head of each endpoint, send them in parallel (one per
 * endpoint), record the outcomes. Returns how many were attempted. Tests drive the worker
 * with it pass by pass; the server's worker (./worker.ts) does not wait for a pass, so one
 * slow receiver never holds back another endpoint's deliveries.
 */
export async function deliverDueWebhooks(db: Db, opts: DeliveryOptions, clock: () => Date = () => new Date()): Promise<number> {
  const now = clock();
  const leased = await leaseDueDeliveries(db, now, opts.batch ?? 50, new Date(now.getTime() + leaseMs(opts)), opts.customerId ?? null);
  await Promise.all(leased.map((d) => attemptLeased(db, d, opts, clock)));
  return leased.length;
}

/** Delivered rows stay this long as the delivery log, then the sweeper drops them (pending rows stay until delivered). */
export const DELIVERED_RETENTION_MS = 30 * 24 * 3_600_000;

export async function sweepDeliveredWebhooks(db: Db, now: Date): Promise<number> {
  const dropped = await db
    .delete(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'delivered'), lt(webhookDeliveries.deliveredAt, new Date(now.getTime() - DELIVERED_RETENTION_MS))))
    .returning({ id: webhookDeliveries.id });
  return dropped.length;
}
