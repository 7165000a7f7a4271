import { and, asc, eq, gt, gte } from 'drizzle-orm';
import { drainNotificationRows } from '@/db/hot/access';
import type { Executor } from '@/db/client';
import { notifications, type NotificationKind } from '@/db/schema';
import { newId } from './ids';
import { recordWebhookEvent } from './webhooks/outbox';

/** A member of a group claim as answers and notifications show it (docs/groups.md). */
export type GroupMemberView = { owner_email: string; hold_id?: string; booking_id?: string; status: string };

/** What each kind of notification carries (docs/api.md "Notifications"; the REST schema is server/schemas/errors.ts). */
export type NotificationData = {
  'hold.expired': { hold_id: string; start: string; end: string; expired_at?: string };
  'booking.preempted': { booking_id?: string; hold_id?: string; claim_kind: 'booking' | 'hold'; owner_email: string; start: string; end: string; preempted_by_meeting_class: string; reason: string; group_id?: string; members?: GroupMemberView[] };
  'booking.cancelled': { booking_id: string; owner_email: string; start: string; end: string; start_local: string; end_local: string; reason: string | null; group_id?: string };
  'booking.rescheduled': {
    booking_id: string;
    owner_email: string;
    from: { start: string; end: string; start_local: string; end_local: string };
    to: { start: string; end: string; start_local: string; end_local: string };
    moved_by: { kind: 'agent' | 'owner' | 'requester'; agent_id?: string; email?: string };
    reason: string | null;
  };
  'proposal.reviewed': { proposal_id: string; status: 'booked' | 'declined'; owner_email: string; booking_id?: string; start?: string; end?: string; reason?: string | null };
  'webhook.disabled': { webhook_id: string; url: string; consecutive_failures: number; reason: string };
};

export type NotificationItem = { [K in NotificationKind]: { id: string; seq: number; kind: K; created_at: string; data: NotificationData[K] } }[NotificationKind];

export const MAX_NOTIFICATIONS_PER_DRAIN = 50;

/**
 * Queue a notification for an agent (call inside the transaction of the effect it reports),
 * and the webhook deliveries of the same event (same id) to the agent's endpoints subscribed
 * to its kind, in the same transaction (docs/webhooks.md).
 */
export async function enqueueNotification(
  db: Executor,
  n: { customerId: string; agentId: string; kind: NotificationKind; data: Record<string, unknown>; now?: Date },
): Promise<void> {
  const id = newId();
  const createdAt = n.now ?? new Date();
  await db.insert(notifications).values({ id, customerId: n.customerId, agentId: n.agentId, kind: n.kind, data: n.data, createdAt });
  await recordWebhookEvent(db, { eventId: id, agentId: n.agentId, kind: n.kind, data: n.data, now: createdAt });
}

/**
 * Take up to 50 undelivered notifications of an agent, oldest first, and mark
 * them delivered. Concurrent drains never hand out the same item twice
 * (SKIP LOCKED).
 */
export async function drainNotifications(db: Executor, agentId: string, now: Date = new Date()): Promise<NotificationItem[]> {
  const rows = await drainNotificationRows(db, agentId, now, MAX_NOTIFICATIONS_PER_DRAIN);
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  return rows.map(item);
}

type NotificationRow = typeof notifications.$inferSelect;
// `data` was written by enqueueNotification for its kind.
const item = (r: NotificationRow) => ({ id: r.id, seq: r.seq, kind: r.kind, created_at: r.createdAt.toISOString(), data: r.data }) as NotificationItem;

/** How long an item stays readable through `since` (docs/api.md "Notifications"). */
export const NOTIFICATION_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * GET /v1/notifications?since=<seq>: this agent's items after `since`, delivered or not, from the
 * last 7 days, in sequence order (up to 50; call again with the last `seq` for more). A read: it
 * changes no delivery state.
 */
export async function notificationsSince(db: Executor, agentId: string, since: number, now: Date): Promise<NotificationItem[]> {
  const rows = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.agentId, agentId), gt(notifications.seq, since), gte(notifications.createdAt, new Date(now.getTime() - NOTIFICATION_RETENTION_MS))))
    .orderBy(asc(notifications.seq))
    .limit(MAX_NOTIFICATIONS_PER_DRAIN);
  return rows.map(item);
}
