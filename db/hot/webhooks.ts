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

/**
 * Lease the oldest pending row of each active endpoint whose next attempt is due and which
 * no live lease holds. Only an endpoint's oldest pending row is a candidate, so a row is
 * never sent while an older one of its endpoint waits (per-endpoint order); one probe of the
 * pending index per active endpoint, whatever the backlog behind its head. Two workers
 * racing for one row: the second UPDATE re-reads the row after the first commits, finds the
 * lease live and skips it, so one row is never in flight twice. `more`: the endpoint has pending
 * rows behind the leased one (the worker looks again when it finishes; docs/webhooks.md "Delivery").
 */
const LEASE_DUE_DELIVERIES = `with heads as (
  select h.id, h.due, h.lease
  from "webhook_endpoints" e
  cross join lateral (
    select p."${d.id}" as id, p."${d.nextAttemptAt}" as due, p."${d.leaseUntil}" as lease
    from "webhook_deliveries" p
    where p."${d.endpointId}" = e."${e.id}" and p."${d.status}" = 'pending'
    order by p."${d.seq}"
    limit 1
  ) h
  where e."${e.status}" = 'active' and ($4::uuid is null or e."${e.customerId}" = $4::uuid)
), due as (
  select id from heads where due <= $1::timestamptz and (lease is null or lease <= $1::timestamptz) limit $2
)
update "webhook_deliveries" r set "${d.leaseUntil}" = $3::timestamptz, "${d.attempts}" = r."${d.attempts}" + 1, "${d.lastAttemptAt}" = $1::timestamptz
from due, "webhook_endpoints" w
where r."${d.id}" = due.id and w."${e.id}" = r."${d.endpointId}" and r."${d.status}" = 'pending'
  and (r."${d.leaseUntil}" is null or r."${d.leaseUntil}" <= $1::timestamptz)
returning ${columnList(webhookDeliveries, 'r', 'd_')}, w."${e.url}" as "w_url", w."${e.secret}" as "w_secret",
  exists (select 1 from "webhook_deliveries" n where n."${d.endpointId}" = r."${d.endpointId}" and n."${d.status}" = 'pending' and n."${d.seq}" > r."${d.seq}") as "w_more"`;

const mapDelivery = rowMapper(webhookDeliveries, 'd_');
export type LeasedDelivery = typeof webhookDeliveries.$inferSelect & { url: string; secret: string; more: boolean };

/** `customerId`: only that customer's endpoints (a drain of one customer; the worker passes none). */
export async function leaseDueDeliveries(db: Executor, now: Date, limit: number, leaseUntil: Date, customerId: string | null = null): Promise<LeasedDelivery[]> {
  // Planned at every execution on PGlite: its generic plan cost 20 ms of CPU there (db/drivers/pglitePrepared.ts).
  const rows = await queryRows(db, LEASE_DUE_DELIVERIES, [now.toISOString(), limit, leaseUntil.toISOString(), customerId], { planEachTime: true });
  return rows.map((r) => ({ ...mapDelivery(r), url: String(r.w_url), secret: String(r.w_secret), more: r.w_more === true || r.w_more === 't' }));
}

/**
 * Record a delivered row and reset its endpoint's failure count, in one statement (no transaction
 * of its own: a data-modifying CTE runs whether or not the endpoint needs the reset). The endpoint
 * row is written only when its count is not already 0, the usual case.
 */
const RECORD_DELIVERED = `with done as (
  update "webhook_deliveries" set "${d.status}" = 'delivered', "${d.deliveredAt}" = $2::timestamptz, "${d.leaseUntil}" = null, "${d.lastStatus}" = $3::int, "${d.lastError}" = null
  where "${d.id}" = $1::uuid
  returning "${d.endpointId}" as endpoint_id
)
update "webhook_endpoints" e set "${e.consecutiveFailures}" = 0 from done where e."${e.id}" = done.endpoint_id and e."${e.consecutiveFailures}" <> 0`;

export async function recordDelivered(db: Executor, deliveryId: string, at: Date, status: number | null): Promise<void> {
  await queryRows(db, RECORD_DELIVERED, [deliveryId, at.toISOString(), status]);
}
