import { notifications, webhookDeliveries, webhookEndpoints } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows } from './driver';

const d = names(webhookDeliveries);
/** NOTIFY channel announcing committed outbox rows and resumed endpoints (migration 0028; docs/webhooks.md "Delivery"). */
export const WEBHOOK_OUTBOX_CHANNEL = 'webhook_outbox';
const e = names(webhookEndpoints);

/**
 * The outbox rows of one event: one per active endpoint of the agent subscribed to its kind
 * (an event of the agent's own change, $6: only the endpoints with include_own), in the caller's transaction (so the event and its deliveries commit together). The row id
 * is derived from (event, endpoint), so writing an event twice cannot send it twice.
 */
const INSERT_WEBHOOK_EVENT = `insert into "webhook_deliveries" ("${d.id}", "${d.customerId}", "${d.endpointId}", "${d.eventId}", "${d.kind}", "${d.body}", "${d.nextAttemptAt}", "${d.createdAt}")
select md5($1::text || e."${e.id}"::text)::uuid, e."${e.customerId}", e."${e.id}", $1::uuid, $3, $4, $5::timestamptz, $5::timestamptz
from "webhook_endpoints" e
where e."${e.agentId}" = $2::uuid and e."${e.status}" = 'active' and $3 = any(e."${e.events}") and (not $6::boolean or e."${e.includeOwn}")
on conflict ("${d.id}") do nothing`;

const n = names(notifications);
/**
 * A notification and the outbox rows of the same event (same id, $1) in one statement: the
 * notification is a data-modifying CTE ($7 customer, $8 its data as JSON; an own event, $6, is
 * stored delivered), the outbox rows as INSERT_WEBHOOK_EVENT writes them.
 */
const INSERT_NOTIFICATION_WITH_EVENT = `with "notification" as (
  insert into "notifications" ("${n.id}", "${n.customerId}", "${n.agentId}", "${n.kind}", "${n.data}", "${n.createdAt}", "${n.deliveredAt}", "${n.own}")
  values ($1::uuid, $7::uuid, $2::uuid, $3, $8::jsonb, $5::timestamptz, case when $6::boolean then $5::timestamptz end, $6::boolean)
)
${INSERT_WEBHOOK_EVENT}`;

/** `own`: an event of the agent's own change, for the endpoints that asked for those (include_own). */
export type WebhookEventRow = { eventId: string; agentId: string; kind: string; body: string; at: Date; own?: boolean };

const eventParams = (ev: WebhookEventRow) => [ev.eventId, ev.agentId, ev.kind, ev.body, ev.at.toISOString(), ev.own === true];

export async function insertWebhookEvent(db: Executor, ev: WebhookEventRow): Promise<void> {
  await queryRows(db, INSERT_WEBHOOK_EVENT, eventParams(ev));
}

/** The notification of an event (its id is the event's) and the event's outbox rows, one statement. */
export async function insertNotificationWithEvent(db: Executor, ev: WebhookEventRow, notification: { customerId: string; data: Record<string, unknown> }): Promise<void> {
  await queryRows(db, INSERT_NOTIFICATION_WITH_EVENT, [...eventParams(ev), notification.customerId, JSON.stringify(notification.data)]);
}

/** A leased row with its endpoint's URL and sealed secret. */
const LEASED_RETURNING = `returning ${columnList(webhookDeliveries, 'r', 'd_')}, w."${e.url}" as "w_url", w."${e.secret}" as "w_secret"`;

/**
 * Lease the rows of `due` (the due heads: id, and status as read), re-checked under the row lock:
 * $1 now, $2 the lease's end; only rows of active endpoints. The status is compared with the one
 * `due` read rather than with the constant: the same check, but the planner cannot then read the
 * rows to lease off the pending index (webhook_deliveries_pending_idx), which, with no statistics
 * on the embedded database (no autovacuum there), it can think holds a couple of rows: in a plan
 * kept for the process, that scan of every pending row for each due head cost 23 ms per
 * statement at a backlog (bench/webhooks.ts, docs/benchmarks/history/2026-11-29-webhooks-one-endpoint-lease.md).
 */
const LEASE_DUE_HEADS = `update "webhook_deliveries" r set "${d.leaseUntil}" = $2::timestamptz, "${d.attempts}" = r."${d.attempts}" + 1, "${d.lastAttemptAt}" = $1::timestamptz
from due, "webhook_endpoints" w
where r."${d.id}" = due.id and r."${d.status}" = due.status and w."${e.id}" = r."${d.endpointId}" and w."${e.status}" = 'active'
  and (r."${d.leaseUntil}" is null or r."${d.leaseUntil}" <= $1::timestamptz)
${LEASED_RETURNING}`;

/**
 * Lease the oldest pending row of each active endpoint whose next attempt is due and which
 * no live lease holds. Only an endpoint's oldest pending row is a candidate, so a row is
 * never sent while an older one of its endpoint waits (per-endpoint order); one probe of the
 * pending index per active endpoint, whatever the backlog behind its head. Two workers
 * racing for one row: the second UPDATE re-reads the row after the first commits, finds the
 * lease live and skips it, so one row is never in flight twice (docs/webhooks.md "Delivery").
 * The worker runs it only as its sweep (at start, as the fallback poll, after a sweep that
 * filled every free place); told where the work is, it runs the one-endpoint statements below.
 */
const LEASE_DUE_DELIVERIES = `with heads as (
  select h.id, h.status, h.due, h.lease
  from "webhook_endpoints" e
  cross join lateral (
    select p."${d.id}" as id, p."${d.status}" as status, p."${d.nextAttemptAt}" as due, p."${d.leaseUntil}" as lease
    from "webhook_deliveries" p
    where p."${d.endpointId}" = e."${e.id}" and p."${d.status}" = 'pending'
    order by p."${d.seq}"
    limit 1
  ) h
  where e."${e.status}" = 'active' and ($4::uuid is null or e."${e.customerId}" = $4::uuid)
), due as (
  select id, status from heads where due <= $1::timestamptz and (lease is null or lease <= $1::timestamptz) limit $3
)
${LEASE_DUE_HEADS}`;

const mapDelivery = rowMapper(webhookDeliveries, 'd_');
export type LeasedDelivery = typeof webhookDeliveries.$inferSelect & { url: string; secret: string };
const mapLeased = (r: Record<string, unknown>): LeasedDelivery => ({ ...mapDelivery(r), url: String(r.w_url), secret: String(r.w_secret) });

/** `customerId`: only that customer's endpoints (a drain of one customer; the worker passes none). */
export async function leaseDueDeliveries(db: Executor, now: Date, limit: number, leaseUntil: Date, customerId: string | null = null): Promise<LeasedDelivery[]> {
  // Planned at every execution on PGlite: its generic plan cost 20 ms of CPU there (db/drivers/pglitePrepared.ts).
  const rows = await queryRows(db, LEASE_DUE_DELIVERIES, [now.toISOString(), leaseUntil.toISOString(), limit, customerId], { planEachTime: true });
  return rows.map(mapLeased);
}

/**
 * Lease the head of one endpoint ($3; of customer $4 when given) when it is due and no live
 * lease holds it: the worker's statement when told of a new row of that endpoint or when a retry
 * it scheduled falls due (docs/webhooks.md "Delivery"). Every step is a probe by key (the
 * pending index by endpoint, then the row and its endpoint by id), the only plan whatever the
 * table sizes, so it runs prepared with its generic plan.
 */
const LEASE_ENDPOINT_HEAD = `with due as (
  select h.id, h.status
  from (
    select p."${d.id}" as id, p."${d.status}" as status, p."${d.nextAttemptAt}" as due, p."${d.leaseUntil}" as lease
    from "webhook_deliveries" p
    where p."${d.endpointId}" = $3::uuid and p."${d.status}" = 'pending' and ($4::uuid is null or p."${d.customerId}" = $4::uuid)
    order by p."${d.seq}"
    limit 1
  ) h
  where h.due <= $1::timestamptz and (h.lease is null or h.lease <= $1::timestamptz)
)
${LEASE_DUE_HEADS}`;

export async function leaseEndpointHead(db: Executor, endpointId: string, now: Date, leaseUntil: Date, customerId: string | null = null): Promise<LeasedDelivery | null> {
  const rows = await queryRows(db, LEASE_ENDPOINT_HEAD, [now.toISOString(), leaseUntil.toISOString(), endpointId, customerId]);
  return rows.length ? mapLeased(rows[0]) : null;
}

/**
 * Record a delivered row ($3; the answer's status $4 at $5), reset its endpoint's failure count
 * (written only when not already 0), and with $6 lease the endpoint's next pending row when it is
 * due: the oldest pending row other than this one (the statement's snapshot still sees this one
 * pending). One statement, no transaction of its own: the data-modifying CTEs run whether or not
 * the lease reads them. A backlog of one endpoint thus drains one statement per delivery. Every
 * step is a probe by key, as in LEASE_ENDPOINT_HEAD.
 */
const RECORD_DELIVERED = `with done as (
  update "webhook_deliveries" set "${d.status}" = 'delivered', "${d.deliveredAt}" = $5::timestamptz, "${d.leaseUntil}" = null, "${d.lastStatus}" = $4::int, "${d.lastError}" = null
  where "${d.id}" = $3::uuid
  returning "${d.endpointId}" as endpoint_id, "${d.id}" as id
), reset as (
  update "webhook_endpoints" e set "${e.consecutiveFailures}" = 0 from done where e."${e.id}" = done.endpoint_id and e."${e.consecutiveFailures}" <> 0
), due as (
  select h.id, h.status
  from done
  cross join lateral (
    select p."${d.id}" as id, p."${d.status}" as status, p."${d.nextAttemptAt}" as due, p."${d.leaseUntil}" as lease
    from "webhook_deliveries" p
    where p."${d.endpointId}" = done.endpoint_id and p."${d.status}" = 'pending' and p."${d.id}" <> done.id
    order by p."${d.seq}"
    limit 1
  ) h
  where $6::boolean and h.due <= $1::timestamptz and (h.lease is null or h.lease <= $1::timestamptz)
)
${LEASE_DUE_HEADS}`;

export type DeliveredRecord = { id: string; status: number | null; at: Date };

/** Record a delivered row; with `next`, lease its endpoint's next due row too (RECORD_DELIVERED), returned. */
export async function recordDelivered(db: Executor, delivered: DeliveredRecord, next: { now: Date; leaseUntil: Date } | null = null): Promise<LeasedDelivery | null> {
  const now = next?.now ?? delivered.at;
  const rows = await queryRows(db, RECORD_DELIVERED, [now.toISOString(), (next?.leaseUntil ?? now).toISOString(), delivered.id, delivered.status, delivered.at.toISOString(), next !== null]);
  return rows.length ? mapLeased(rows[0]) : null;
}
