import { and, asc, eq, gt, gte } from 'drizzle-orm';
import { completeKeysAndDrainRows, drainNotificationRows, type KeyCompletion } from '@/db/hot/access';
import { insertNotificationWithEvent } from '@/db/hot/webhooks';
import type { Executor } from '@/db/client';
import { notifications, type NotificationKind } from '@/db/schema';
import { videoLinkOf, videoLinkView, type VideoLinkView } from './calendars/videoLinks';
import { groupCommit } from './groupCommit';
import { isUuid, newId } from './ids';
import { webhookEventRow, type EventCause } from './webhooks/outbox';

/** A member of a group claim as answers and notifications show it (docs/groups.md). */
export type GroupMemberView = { owner_email: string; hold_id?: string; booking_id?: string; status: string };

/** What booking.approved and booking.declined say of the held booking (docs/api.md "Approval policies"). */
type ApprovalSpan = { proposal_id: string; hold_id: string; owner_email: string; meeting_class: string; start: string; end: string; start_local: string; end_local: string };

/** What each kind of notification carries (docs/api.md "Notifications"; the REST schema is server/schemas/errors.ts). */
/** The kinds about one booking: their data carries its `video` when it has a link (docs/webhooks.md "Video links"). */
const BOOKING_KINDS: ReadonlySet<NotificationKind> = new Set(['booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved']);
/** Kinds whose booking is off: its link reads `removed`. */
const BOOKING_OFF: ReadonlySet<NotificationKind> = new Set(['booking.preempted', 'booking.cancelled']);

type NotificationDataOf = {
  'hold.expired': { hold_id: string; start: string; end: string; expired_at?: string };
  'booking.preempted': { booking_id?: string; hold_id?: string; claim_kind: 'booking' | 'hold'; owner_email: string; start: string; end: string; preempted_by_meeting_class: string; reason: string; group_id?: string; members?: GroupMemberView[]; replacement_hold?: { id: string; start: string; end: string; expires_at: string } | null };
  'booking.cancelled': { booking_id: string; owner_email: string; start: string; end: string; start_local: string; end_local: string; reason: string | null; group_id?: string; cancelled_by?: 'requester' };
  'booking.rescheduled': {
    booking_id: string;
    owner_email: string;
    from: { start: string; end: string; start_local: string; end_local: string };
    to: { start: string; end: string; start_local: string; end_local: string };
    moved_by: { kind: 'agent' | 'owner' | 'requester'; agent_id?: string; email?: string };
    reason: string | null;
    group_id?: string;
  };
  'booking.reminder': {
    booking_id: string;
    owner_email: string;
    meeting_class: string | null;
    title: string | null;
    start: string;
    end: string;
    start_local: string;
    end_local: string;
    offset_minutes: number;
    due_at: string;
    recipients: string[];
    group_id?: string;
  };
  'proposal.reviewed': { proposal_id: string; status: 'booked' | 'declined'; owner_email: string; booking_id?: string; start?: string; end?: string; reason?: string | null };
  'booking.approved': ApprovalSpan & { booking_id: string; approved_by: { email: string } };
  'booking.declined': ApprovalSpan & { reason: string | null; declined_by: { email: string } };
  'waitlist.offered': { waitlist_id: string; hold_id: string; owner_email: string; meeting_class: string; start: string; end: string; expires_at: string };
  'webhook.disabled': { webhook_id: string; url: string; consecutive_failures: number; reason: string };
};
/** What each kind carries; a kind about a booking also its `video`, when the booking has a link. */
export type NotificationData = { [K in NotificationKind]: NotificationDataOf[K] & { video?: VideoLinkView } };

/** Who caused an event (server/domain/webhooks/outbox.ts eventActor). */
type EventActorView = { kind: 'agent' | 'owner' | 'requester' | 'system'; agent_id?: string; email?: string };

export type NotificationItem = { [K in NotificationKind]: { id: string; seq: number; kind: K; created_at: string; data: NotificationData[K] & { actor: EventActorView } } }[NotificationKind];

const MAX_NOTIFICATIONS_PER_DRAIN = 50;

/**
 * Queue a notification for an agent (call inside the transaction of the effect it reports),
 * and the webhook deliveries of the same event (same id) to the agent's endpoints subscribed
 * to its kind, in the same transaction (docs/webhooks.md). `actor` (who caused it) goes into
 * its data; `own` marks an event of the agent's own change (docs/webhooks.md "Own events").
 */
export async function enqueueNotification(
  db: Executor,
  n: { customerId: string; agentId: string; kind: NotificationKind; data: Record<string, unknown>; now?: Date; actor?: EventCause; own?: boolean },
): Promise<void> {
  const id = newId();
  const createdAt = n.now ?? new Date();
  const actor = n.actor ?? { kind: 'system' as const }; // what no one did: an expiry, a disabled endpoint
  const booked = await withVideo(db, n.kind, n.data);
  // One statement (db/hot/webhooks.ts): the notification, its data with `actor` as the webhook body
  // carries it; an own event is kept delivered, never in the pending queue, read with include_own
  // (docs/webhooks.md "Own events").
  const event = webhookEventRow({ eventId: id, agentId: n.agentId, kind: n.kind, data: booked, now: createdAt, actor, own: n.own });
  await insertNotificationWithEvent(db, event.row, { customerId: n.customerId, data: event.data });
}

/**
 * An event about a booking with a video link carries the link as the booking's answers show it
 * (`video`: provider, status, join_url, error; `removed` once the booking is off): docs/webhooks.md "Video links".
 */
async function withVideo(db: Executor, kind: NotificationKind, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  // Only a booking's id can have a link (an event naming anything else carries none).
  if (!BOOKING_KINDS.has(kind) || typeof data.booking_id !== 'string' || !isUuid(data.booking_id) || data.video) return data;
  const link = await videoLinkOf(db, data.booking_id);
  return link ? { ...data, video: videoLinkView(link, !BOOKING_OFF.has(kind)) } : data;
}

/**
 * Take up to 50 undelivered notifications of an agent, oldest first, and mark
 * them delivered. Concurrent drains never hand out the same item twice
 * (SKIP LOCKED).
 */
export async function drainNotifications(db: Executor, agentId: string, now: Date = new Date()): Promise<NotificationItem[]> {
  return items(await drainNotificationRows(db, agentId, now, MAX_NOTIFICATIONS_PER_DRAIN));
}

/**
 * The keyed refusals answered while a statement of theirs is in flight, stored together
 * (./groupCommit.ts): each key's record takes its answer and each agent's queue is drained, in
 * one statement. An agent's items go to the first of its refusals in the batch and the others
 * get none, as when concurrent drains race (SKIP LOCKED).
 */
const answerGrouped = groupCommit<KeyCompletion & { agentId: string }, NotificationRow[]>(64, async (db, refusals) => {
  const rows = await completeKeysAndDrainRows(db, refusals, new Date(), MAX_NOTIFICATIONS_PER_DRAIN);
  const byAgent = new Map<string, NotificationRow[]>();
  for (const row of rows) {
    const own = byAgent.get(row.agentId);
    if (own) own.push(row);
    else byAgent.set(row.agentId, [row]);
  }
  return refusals.map((f) => {
    const own = byAgent.get(f.agentId) ?? [];
    byAgent.delete(f.agentId);
    return own;
  });
});

/**
 * An error answer of a keyed request (server/http/failure.ts): its key's record takes the
 * answer, and the agent's pending notifications (up to 50) are drained, in one statement shared
 * with the other refusals of the moment.
 */
export async function drainNotificationsAnswering(db: Executor, agentId: string, complete: KeyCompletion): Promise<NotificationItem[]> {
  return items(await answerGrouped(db, { ...complete, agentId }));
}

function items(rows: NotificationRow[]): NotificationItem[] {
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  return rows.map(item);
}

type NotificationRow = typeof notifications.$inferSelect;
// `data` was written by enqueueNotification for its kind.
const item = (r: NotificationRow) => ({ id: r.id, seq: r.seq, kind: r.kind, created_at: r.createdAt.toISOString(), data: r.data }) as NotificationItem;

/** How long an item stays readable through `since` (docs/api.md "Notifications"). */
const NOTIFICATION_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * GET /v1/notifications?since=<seq>: this agent's items after `since`, delivered or not, from the
 * last 7 days, in sequence order (up to 50; call again with the last `seq` for more); the agent's
 * own events only with `includeOwn` (docs/webhooks.md "Own events"). A read: it changes no
 * delivery state.
 */
export async function notificationsSince(db: Executor, agentId: string, since: number, now: Date, includeOwn = false): Promise<NotificationItem[]> {
  const rows = await db
    .select()
    .from(notifications)
    .where(
      and(
        eq(notifications.agentId, agentId),
        gt(notifications.seq, since),
        gte(notifications.createdAt, new Date(now.getTime() - NOTIFICATION_RETENTION_MS)),
        includeOwn ? undefined : eq(notifications.own, false),
      ),
    )
    .orderBy(asc(notifications.seq))
    .limit(MAX_NOTIFICATIONS_PER_DRAIN);
  return rows.map(item);
}
