import type { Executor } from '@/db/client';
import type { WebhookDeliveryKind } from '@/db/schema';
import { insertWebhookEvent } from '@/db/hot/webhooks';
import { newId } from '../ids';

/** The JSON body every endpoint receives for an event (docs/webhooks.md "Payload"). */
export function eventBody(eventId: string, kind: WebhookDeliveryKind, data: Record<string, unknown>, at: Date): string {
  return JSON.stringify({ id: eventId, type: kind, created_at: at.toISOString(), data });
}

/**
 * Write the outbox rows of an event for the agent's subscribed endpoints. Call it inside the
 * transaction of the effect (the rows commit or roll back with it); one statement, and no
 * round trip of its own when deferred (db/hot/driver.ts defer).
 */
export function recordWebhookEvent(
  db: Executor,
  ev: { agentId: string; kind: WebhookDeliveryKind; data: Record<string, unknown>; now: Date; eventId?: string },
): Promise<void> {
  const eventId = ev.eventId ?? newId(ev.now.getTime());
  return insertWebhookEvent(db, { eventId, agentId: ev.agentId, kind: ev.kind, body: eventBody(eventId, ev.kind, ev.data, ev.now), at: ev.now });
}
