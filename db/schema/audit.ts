import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { idColumn, instant, oneOf } from './columns';
import { customers } from './customers';

export const AUDIT_OUTCOMES = ['accept', 'reject', 'counter_propose', 'denied'] as const;

/**
 * Every action the audit log records: the one list behind the domain's types, the
 * `action` filter's zod enum (GET /v1/audit-log, OpenAPI, tRPC) and the dashboard's
 * filter (docs/api.md "Audit log" says who writes each).
 */
export const AUDIT_ACTIONS = [
  // arbitration decisions and what they cause
  'hold.create',
  'booking.confirm',
  'booking.create',
  'booking.cancel',
  'booking.reschedule',
  'booking.update',
  'hold.extend',
  'claim.preempt',
  // an agent's booking held for the owner's approval (docs/api.md "Approval policies")
  'booking.request',
  // booking proposals: agents, requesters, the owner's review, the clock
  'proposal.create',
  'proposal.submit',
  'proposal.contact_verify',
  'proposal.withdraw',
  'proposal.review',
  'proposal.decline',
  'proposal.expire',
  // refusals of permission or owner scope
  'request.denied',
  // administrative changes
  'owner.create',
  'owner.invite',
  'schedule_rules.replace',
  'meeting_class.create',
  'meeting_class.update',
  'approval_policy.create',
  'approval_policy.delete',
  'pool.create',
  'pool.update',
  'pool.delete',
  'agent.create',
  'agent.update',
  'api_key.mint',
  'api_key.revoke',
  'public_link.create',
  'public_link.update',
  'public_link.delete',
  'public_meeting_type.create',
  'public_meeting_type.update',
  'domain.create',
  'domain.verify',
  'domain.delete',
  'requester_identity.create',
  'requester_credential.mint',
  'requester_credential.revoke',
  'audience.create',
  'audience.update',
  'audience.delete',
  'allocation.create',
  'allocation.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted: an agent (its API key), an owner (the dashboard), a public
 * requester (the booking pages), or the system (customer set-up, the clock).
 */
export const AUDIT_ACTOR_KINDS = ['agent', 'owner', 'requester', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/**
 * One row per decision (accept, reject, counter_propose) and per
 * administrative change (outcome accept), written in the same transaction as
 * its effect. Denormalised (owner email, class name) so the log reads as it
 * was at decision time. `actor_kind` names who acted (docs/reliability.md,
 * "Audit actors"), and exactly the matching identity is set: `agent_id` (the
 * agent whose API key made the call), `actor_owner_id`/`actor_owner_email`
 * (an owner in the dashboard), `actor_requester_email` (a public requester),
 * none for the system. `owner_id`/`owner_email` name the owner the entry is
 * about. `details` says what an administrative change changed.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    at: instant('at').notNull().defaultNow(),
    agentId: uuid('agent_id'),
    ownerId: uuid('owner_id'),
    ownerEmail: text('owner_email'),
    actorOwnerId: uuid('actor_owner_id'),
    actorOwnerEmail: text('actor_owner_email'),
    actorKind: text('actor_kind', { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorRequesterEmail: text('actor_requester_email'),
    action: text('action').notNull(),
    outcome: text('outcome', { enum: AUDIT_OUTCOMES }).notNull(),
    reason: text('reason'),
    meetingClass: text('meeting_class'),
    startAt: instant('start_at'),
    endAt: instant('end_at'),
    holdId: uuid('hold_id'),
    bookingId: uuid('booking_id'),
    preemptedBookingIds: uuid('preempted_booking_ids').array().notNull().default([]),
    idempotencyKey: text('idempotency_key'),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [
    index('audit_customer_at_idx').on(t.customerId, t.at, t.id),
    index('audit_owner_at_idx').on(t.ownerId, t.at),
    oneOf('audit_log_outcome_check', t.outcome, AUDIT_OUTCOMES),
    check('audit_log_actor_owner', sql`(${t.actorOwnerId} is null) = (${t.actorOwnerEmail} is null)`),
    oneOf('audit_log_actor_kind_check', t.actorKind, AUDIT_ACTOR_KINDS),
    // The actor's identity is exactly the one its kind names.
    check(
      'audit_log_actor_identity',
      sql`(${t.agentId} is not null) = (${t.actorKind} = 'agent') and (${t.actorOwnerId} is not null) = (${t.actorKind} = 'owner') and (${t.actorRequesterEmail} is not null) = (${t.actorKind} = 'requester')`,
    ),
  ],
);
