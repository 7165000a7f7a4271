import type { Executor } from '@/db/client';
import type { WebhookDeliveryKind } from '@/db/schema';
import { insertWebhookEvent, type WebhookEventRow } from '@/db/hot/webhooks';
import { newId } from '../ids';

/** The JSON body every endpoint receives for an event (docs/webhooks.md "Payload"). */
export function eventBody(eventId: string, kind: WebhookDeliveryKind, data: Record<string, unknown>, at: Date): string {
  return JSON.stringify({ id: eventId, type: kind, created_at: at.toISOString(), data });
}

/** Who caused an event, as the service knows it (an audit actor has this shape). */
export type EventCause = { kind: 'agent'; agentId: string } | { kind: 'owner'; email: string } | { kind: 'requester'; email: string } | { kind: 'system' };

/**
 * `actor` of every event (docs/webhooks.md "Payload"): `{kind: "agent", agent_id}`, `{kind:
 * "owner", email}`, `{kind: "requester", email}` or `{kind: "system"}` (an expiry, a disabled
 * endpoint), so an agent tells its own changes from others'.
 */
export function eventActor(cause: EventCause): Record<string, string> {
  if (cause.kind === 'agent') return { kind: 'agent', agent_id: cause.agentId };
  if (cause.kind === 'system') return { kind: 'system' };
  return { kind: cause.kind, email: cause.email };
}

type EventInput = { agentId: string; kind: WebhookDeliveryKind; data: Record<string, unknown>; now: Date; actor?: EventCause; own?: boolean; eventId?: string };

/** The outbox row of an event as db/hot/webhooks.ts writes it, and the event's data (with `actor`). */
export function webhookEventRow(ev: EventInput): { row: WebhookEventRow; data: Record<string, unknown> } {
  const eventId = ev.eventId ?? newId(ev.now.getTime());
  const data = { ...ev.data, actor: eventActor(ev.actor ?? { kind: 'system' }) };
  return { row: { eventId, agentId: ev.agentId, kind: ev.kind, body: eventBody(eventId, ev.kind, data, ev.now), at: ev.now, own: ev.own }, data };
}

/**
 * Write the outbox rows of an event for the agent's subscribed endpoints (`own`: an event of the
 * agent's own change, only for the endpoints with include_own), with `actor` in its data. Call it
 * inside the transaction of the effect (the rows commit or roll back with it); one statement,
 * and no round trip of its own when deferred (db/hot/driver.ts defer). A notification writes
 * its event's rows in its own statement (notificationService.ts enqueueNotification).
 */
export function recordWebhookEvent(db: Executor, ev: EventInput): Promise<void> {
  return insertWebhookEvent(db, webhookEventRow(ev).row);
}
