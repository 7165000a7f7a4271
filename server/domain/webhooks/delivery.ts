import http from 'node:http';
import https from 'node:https';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema';
import { leaseDueDeliveries, type LeasedDelivery } from '@/db/hot/webhooks';
import { enqueueNotification } from '../notificationService';
import { guardedLookup, literalHostRefused } from './urlSafety';
import { openWebhookSecret } from './secretStore';
import { signatureHeaders } from './signature';

/** An endpoint is disabled after this many failed attempts in a row (docs/webhooks.md "Retries"). */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 15;
/** Longest wait between two attempts of one delivery. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A receiver has this long to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A leased row is retaken after this (the attempt's process died mid-request). */
export const LEASE_MS = DELIVERY_TIMEOUT_MS + 5_000;
const MAX_ERROR_TEXT = 500;

export type DeliveryOptions = {
  allowPrivate: boolean;
  retryBaseMs: number;
  disableAfter?: number;
  /** Rows leased per pass (one per endpoint at most). */
  batch?: number;
  random?: () => number;
};

/** Exponential backoff with jitter: base * 2^(attempt-1), capped, times a random factor in [0.5, 1). */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exp = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(30, attempt - 1));
  return Math.round(exp * (0.5 + random() / 2));
}

type AttemptResult = { ok: boolean; status: number | null; error: string | null };

/**
 * POST the body with its signature; 2xx is success, anything else (or no answer in time) a
 * failure. A fresh connection per attempt (no pooled socket outlives a target's checks).
 */
export function attemptDelivery(d: LeasedDelivery, allowPrivate: boolean, now: Date): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(d.url);
    } catch {
      return resolve({ ok: false, status: null, error: 'invalid URL' });
    }
    if (literalHostRefused(url, allowPrivate)) return resolve({ ok: false, status: null, error: 'refused: private address' });
    const client = url.protocol === 'https:' ? https : http;
    let secret: string;
    try {
      secret = openWebhookSecret(d.secret);
    } catch {
      // Sealed under a key this instance does not have (CALENDAR_SECRET_KEYS): a failed attempt, retried later.
      return resolve({ ok: false, status: null, error: 'signing secret cannot be opened with the configured keys' });
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'agent-scheduler-webhooks/1',
      ...signatureHeaders(secret, d.id, d.body, now),
    };
    const req = client.request(url, { method: 'POST', headers, agent: false, lookup: guardedLookup(allowPrivate), timeout: DELIVERY_TIMEOUT_MS }, (res) => {
      res.resume(); // the answer's body is not read
      res.on('end', () => {});
      const status = res.statusCode ?? 0;
      resolve({ ok: status >= 200 && status < 300, status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`)));
    req.on('error', (err) => resolve({ ok: false, status: null, error: String(err.message).slice(0, MAX_ERROR_TEXT) }));
    req.end(d.body);
  });
}

/** Record one attempt: delivered, or rescheduled with backoff (and the endpoint disabled after too many failures). */
async function recordAttempt(db: Db, d: LeasedDelivery, result: AttemptResult, opts: DeliveryOptions, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    if (result.ok) {
      await tx
        .update(webhookDeliveries)
        .set({ status: 'delivered', deliveredAt: now, leaseUntil: null, lastStatus: result.status, lastError: null })
        .where(eq(webhookDeliveries.id, d.id));
      await tx.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, d.endpointId));
      return;
    }
    const next = new Date(now.getTime() + retryDelayMs(d.attempts, opts.retryBaseMs, opts.random));
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
      await enqueueNotification(tx, {
        customerId: ep.customerId,
        agentId: ep.agentId,
        kind: 'webhook.disabled',
        data: { webhook_id: ep.id, url: ep.url, consecutive_failures: ep.consecutiveFailures, reason },
        now,
      });
    }
  });
}

/**
 * One pass of the delivery worker: lease the due head of each endpoint, send them in
 * parallel (one per endpoint), record the outcomes. Returns how many were attempted.
 */
export async function deliverDueWebhooks(db: Db, opts: DeliveryOptions, clock: () => Date = () => new Date()): Promise<number> {
  const now = clock();
  const leased = await leaseDueDeliveries(db, now, opts.batch ?? 50, new Date(now.getTime() + LEASE_MS));
  await Promise.all(
    leased.map(async (d) => {
      const result = await attemptDelivery(d, opts.allowPrivate, clock());
      await recordAttempt(db, d, result, opts, clock());
    }),
  );
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
