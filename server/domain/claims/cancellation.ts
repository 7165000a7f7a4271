import type { AgentActor } from '../access';
import type { OwnerActor } from '../adminAudit';
import { localSpan } from '../scheduling';
import type { EventCause } from '../webhooks/outbox';
import type { AuditEntry } from '../audit';

/** A booking being cancelled by an agent: the facts its audit row and its agent's notice need. */
export type CancelledBooking = {
  id: string;
  customerId: string;
  ownerId: string;
  ownerEmail: string;
  agentId: string | null;
  meetingClass: string | null;
  startAt: Date;
  endAt: Date;
  timeZone: string;
  holdId?: string | null;
  /** An occurrence of a recurring series: its audit row and notice carry the series_id. */
  seriesId?: string | null;
};

/**
 * What a cancellation records (docs/api.md "Notifications"), for a single booking and for each
 * member of a group booking alike: the `booking.cancel` audit row, and the `booking.cancelled`
 * notice for the booking's own agent (null when it has none): from someone else (another agent,
 * or an owner in the dashboard), or its own cancel as an own event (`own`, read only with
 * include_own). Every notice names its `actor`. A group's rows and notices carry its `group_id`.
 */
export function cancellationRecords(
  actor: AgentActor | OwnerActor,
  b: CancelledBooking,
  reason: string | undefined,
  idempotencyKey: string | null,
  now: Date,
  groupId?: string,
): { audit: AuditEntry; notice: { customerId: string; agentId: string; kind: 'booking.cancelled'; data: Record<string, unknown>; now: Date; actor: EventCause; own: boolean } | null } {
  const audit: AuditEntry = {
    customerId: actor.customerId,
    agentId: actor.kind === 'agent' ? actor.agentId : null,
    ...(actor.kind === 'owner' ? { actor: { kind: 'owner' as const, ownerId: actor.ownerId, email: actor.email } } : {}),
    ownerId: b.ownerId,
    ownerEmail: b.ownerEmail,
    action: 'booking.cancel',
    outcome: 'accept',
    reason: reason ?? null,
    meetingClass: b.meetingClass,
    start: b.startAt,
    end: b.endAt,
    ...(b.holdId !== undefined ? { holdId: b.holdId } : {}),
    bookingId: b.id,
    idempotencyKey,
    ...(groupId || b.seriesId ? { details: { ...(groupId ? { group_id: groupId } : {}), ...(b.seriesId ? { series_id: b.seriesId } : {}) } } : {}),
    at: now,
  };
  const group = { ...(groupId ? { group_id: groupId } : {}), ...(b.seriesId ? { series_id: b.seriesId } : {}) };
  // Cancelled by its own agent: an own event, for include_own readers only (docs/webhooks.md "Own events").
  const own = actor.kind === 'agent' && b.agentId === actor.agentId;
  const cause: EventCause = actor.kind === 'agent' ? { kind: 'agent', agentId: actor.agentId } : { kind: 'owner', email: actor.email };
  const notice = b.agentId
    ? { customerId: b.customerId, agentId: b.agentId, kind: 'booking.cancelled' as const, data: { booking_id: b.id, owner_email: b.ownerEmail, ...localSpan(b.startAt, b.endAt, b.timeZone), reason: reason ?? null, ...group }, now, actor: cause, own }
    : null;
  return { audit, notice };
}
