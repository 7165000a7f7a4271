import { webhookDeliveries, webhookEndpoints } from '../schema';
import type { Executor } from '../client';
import { columnList, names, rowMapper } from './columns';
import { queryRows } from './driver';

const d = names(webhookDeliveries);
const e = names(webhookEndpoints);

/**
 * The outbox rows of one event: one per active endpoint of the agent subscribed to its kind,
 * in the caller's transaction (so the event and its deliveries commit together). The row id
 * is derived from (event, endpoint), so writing an event twice cannot send it twice.
 */
export const INSERT_WEBHOOK_EVENT = `insert into "webhook_deliveries" ("${d.id}", "${d.customerId}", "${d.endpointId}", "${d.eventId}", "${d.kind}", "${d.body}", "${d.nextAttemptAt}", "${d.createdAt}")
select md5($1::text || e."${e.id}"::text)::uuid, e."${e.customerId}", e."${e.id}", $1::uuid, $3, $4, $5::timestamptz, $5::timestamptz
from "webhook_endpoints" e
where e."${e.agentId}" = $2::uuid and e."${e.status}" = 'active' and $3 = any(e."${e.events}")
on conflict ("${d.id}") do nothing`;

export type WebhookEventRow = { eventId: string; agentId: string; kind: string; body: string; at: Date };

export async function insertWebhookEvent(db: Executor, ev: WebhookEventRow): Promise<void> {
  await queryRows(db, INSERT_WEBHOOK_EVENT, [ev.eventId, ev.agentId, ev.kind, ev.body, ev.at.toISOString()]);
}

/**
 * Lease the oldest pending row of each active endpoint whose next attempt is due and which
 * no live lease holds. Only an endpoint's oldest pending row is a candidate, so a row is
 * never sent while an older one of its endpoint waits (per-endpoint order); one probe of the
 * pending index per active endpoint, whatever the backlog behind its head. Two workers
 * racing for one row: the second UPDATE re-reads the row after the first commits, finds the
 * lease live and skips it, so one row is never in flight twice.
 */
export const LEASE_DUE_DELIVERIES = `with heads as (
  select h.id, h.due, h.lease
  from "webhook_endpoints" e
  cross join lateral (
    select p."${d.id}" as id, p."${d.nextAttemptAt}" as due, p."${d.leaseUntil}" as lease
    from "webhook_deliveries" p
    where p."${d.endpointId}" = e."${e.id}" and p."${d.status}" = 'pending'
    order by p."${d.seq}"
    limit 1
  ) h
  where e."${e.status}" = 'active'
), due as (
  select id from heads where due <= $1::timestamptz and (lease is null or lease <= $1::timestamptz) limit $2
)
update "webhook_deliveries" r set "${d.leaseUntil}" = $3::timestamptz, "${d.attempts}" = r."${d.attempts}" + 1, "${d.lastAttemptAt}" = $1::timestamptz
from due, "webhook_endpoints" w
where r."${d.id}" = due.id and w."${e.id}" = r."${d.endpointId}" and r."${d.status}" = 'pending'
  and (r."${d.leaseUntil}" is null or r."${d.leaseUntil}" <= $1::timestamptz)
returning ${columnList(webhookDeliveries, 'r', 'd_')}, w."${e.url}" as "w_url", w."${e.secret}" as "w_secret"`;

const mapDelivery = rowMapper(webhookDeliveries, 'd_');
export type LeasedDelivery = typeof webhookDeliveries.$inferSelect & { url: string; secret: string };

export async function leaseDueDeliveries(db: Executor, now: Date, limit: number, leaseUntil: Date): Promise<LeasedDelivery[]> {
  const rows = await queryRows(db, LEASE_DUE_DELIVERIES, [now.toISOString(), limit, leaseUntil.toISOString()]);
  return rows.map((r) => ({ ...mapDelivery(r), url: String(r.w_url), secret: String(r.w_secret) }));
}
