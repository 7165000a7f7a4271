import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { WEBHOOK_MANUAL_DISABLE_REASON, webhookDeliveries, webhookEndpoints, type WebhookDeliveryKind, type WebhookEventKind } from '@/db/schema';
import type { AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid, newId, randomToken, SECRET_PREFIX } from '../ids';
import { eventActor, eventBody } from './outbox';
import { sealWebhookSecret } from './secretStore';
import { assertPublicTarget } from './urlSafety';

/**
 * Webhook endpoints of an agent (docs/webhooks.md): each agent manages its own endpoints and
 * sees only them; no permission beyond a valid key is needed, since an endpoint receives only
 * what the agent could already drain from its notifications or read back about its own effects.
 * An admin owner manages them too, from the dashboard (docs/dashboard.md "Webhooks"): the
 * same functions with the agent named by id (`EndpointsOf`), after checking the agent is one
 * of the customer's.
 */

/** Whose endpoints: an agent's own key, or an admin acting for one of the customer's agents. */
export type EndpointsOf = Pick<AgentActor, 'customerId' | 'agentId'>;
type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookView = {
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventKind[];
  include_own: boolean;
  status: 'active' | 'disabled';
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
};

function webhookView(e: WebhookEndpointRow): WebhookView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    include_own: e.includeOwn,
    status: e.status,
    consecutive_failures: e.consecutiveFailures,
    disabled_reason: e.disabledReason,
    disabled_at: e.disabledAt?.toISOString() ?? null,
    created_at: e.createdAt.toISOString(),
  };
}

/** Most endpoints one agent may register. */
const MAX_ENDPOINTS_PER_AGENT = 20;

function notFound(): DomainError {
  return new DomainError('WEBHOOK_NOT_FOUND', 'No such webhook endpoint for this agent');
}

async function load(db: Db, actor: EndpointsOf, id: string): Promise<WebhookEndpointRow> {
  if (!isUuid(id)) throw notFound();
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.customerId, actor.customerId), eq(webhookEndpoints.agentId, actor.agentId)));
  if (!row) throw notFound();
  return row;
}

export async function createWebhook(
  db: Db,
  actor: EndpointsOf,
  input: { url: string; events: WebhookEventKind[]; description?: string | null; include_own?: boolean },
  allowPrivate: boolean,
  now: Date,
): Promise<WebhookView & { secret: string }> {
  await assertPublicTarget(input.url, allowPrivate);
  const existing = await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.agentId, actor.agentId));
  if (existing.length >= MAX_ENDPOINTS_PER_AGENT) {
    throw new DomainError('WEBHOOK_LIMIT_REACHED', `An agent may register at most ${MAX_ENDPOINTS_PER_AGENT} webhook endpoints`);
  }
  const secret = SECRET_PREFIX.webhookSecret + randomToken(32);
  const [row] = await db
    .insert(webhookEndpoints)
    .values({
      id: newId(now.getTime()),
      customerId: actor.customerId,
      agentId: actor.agentId,
      url: input.url,
      description: input.description ?? null,
      secret: sealWebhookSecret(secret),
      events: [...new Set(input.events)],
      includeOwn: input.include_own ?? false,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { ...webhookView(row), secret };
}

export async function listWebhooks(db: Db, actor: EndpointsOf): Promise<WebhookView[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.customerId, actor.customerId), eq(webhookEndpoints.agentId, actor.agentId)))
    .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
  return rows.map(webhookView);
}

export async function getWebhook(db: Db, actor: EndpointsOf, id: string): Promise<WebhookView> {
  return webhookView(await load(db, actor, id));
}

/** Change URL, events, description or include_own; `enabled: true` re-enables a disabled endpoint (its pending rows resume, in order). */
export async function updateWebhook(
  db: Db,
  actor: EndpointsOf,
  id: string,
  patch: { url?: string; events?: WebhookEventKind[]; description?: string | null; enabled?: boolean; include_own?: boolean },
  allowPrivate: boolean,
  now: Date,
): Promise<WebhookView> {
  const current = await load(db, actor, id);
  if (patch.url !== undefined) await assertPublicTarget(patch.url, allowPrivate);
  const set: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: now };
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.events !== undefined) set.events = [...new Set(patch.events)];
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.include_own !== undefined) set.includeOwn = patch.include_own;
  if (patch.enabled === true && current.status === 'disabled') Object.assign(set, { status: 'active', consecutiveFailures: 0, disabledAt: null, disabledReason: null });
  if (patch.enabled === false && current.status === 'active') Object.assign(set, { status: 'disabled', disabledAt: now, disabledReason: WEBHOOK_MANUAL_DISABLE_REASON });
  const [row] = await db.update(webhookEndpoints).set(set).where(eq(webhookEndpoints.id, current.id)).returning();
  return webhookView(row);
}

/** Delete an endpoint and its outbox rows (undelivered ones are dropped). */
export async function deleteWebhook(db: Db, actor: EndpointsOf, id: string): Promise<{ id: string; deleted: true }> {
  const current = await load(db, actor, id);
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id));
  return { id: current.id, deleted: true };
}

/** Queue a `webhook.test` event to this endpoint alone (through the outbox, like any event). */
export async function testWebhook(db: Db, actor: EndpointsOf, id: string, now: Date): Promise<{ delivery_id: string; event_id: string }> {
  const ep = await load(db, actor, id);
  const eventId = newId(now.getTime());
  const body = eventBody(eventId, 'webhook.test', { webhook_id: ep.id, message: 'Test delivery', actor: eventActor({ kind: 'agent', agentId: actor.agentId }) }, now);
  const deliveryId = newId(now.getTime());
  await db.insert(webhookDeliveries).values({ id: deliveryId, customerId: ep.customerId, endpointId: ep.id, eventId, kind: 'webhook.test', body, nextAttemptAt: now, createdAt: now });
  return { delivery_id: deliveryId, event_id: eventId };
}

export type DeliveryView = {
  id: string;
  event_id: string;
  kind: WebhookDeliveryKind;
  status: 'pending' | 'delivered';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
};

/** The delivery log: newest first, `limit` at a time; `cursor` is the last id of the previous page. */
export async function listDeliveries(db: Db, actor: EndpointsOf, id: string, limit: number, cursor?: string): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
  const ep = await load(db, actor, id);
  let before: number | undefined;
  if (cursor) {
    if (!isUuid(cursor)) throw new DomainError('invalid_request', 'Unknown cursor', { fields: [{ field: 'cursor', message: 'not a cursor of this list' }] });
    const [c] = await db.select({ seq: webhookDeliveries.seq }).from(webhookDeliveries).where(and(eq(webhookDeliveries.id, cursor), eq(webhookDeliveries.endpointId, ep.id)));
    if (!c) throw new DomainError('invalid_request', 'Unknown cursor', { fields: [{ field: 'cursor', message: 'not a cursor of this list' }] });
    before = c.seq;
  }
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, ep.id), before === undefined ? undefined : lt(webhookDeliveries.seq, before)))
    .orderBy(desc(webhookDeliveries.seq))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    deliveries: page.map((r) => ({
      id: r.id,
      event_id: r.eventId,
      kind: r.kind,
      status: r.status,
      attempts: r.attempts,
      last_status: r.lastStatus,
      last_error: r.lastError,
      last_attempt_at: r.lastAttemptAt?.toISOString() ?? null,
      next_attempt_at: r.status === 'pending' ? r.nextAttemptAt.toISOString() : null,
      delivered_at: r.deliveredAt?.toISOString() ?? null,
      created_at: r.createdAt.toISOString(),
    })),
    next_cursor: rows.length > limit ? page[page.length - 1].id : null,
  };
}
