import { parseOwnerScope, resolveOwnerEmail } from '@/server/domain/access';
import { queryAudit } from '@/server/domain/audit';
import { invalidField } from '@/server/domain/errors';
import { drainNotifications, notificationsSince } from '@/server/domain/notificationService';
import { defineOperation } from '../operation';
import * as S from '@/server/schemas/scheduling';

/* What an agent reads of what happened: its notification queue and the audit log (docs/api.md "Notifications", "Audit log"). */

const date = (s: string) => new Date(s);

export const notificationsOp = defineOperation({
  operationId: 'drainNotifications',
  method: 'GET',
  path: '/v1/notifications',
  summary: "Drain this agent's notification queue (oldest first, up to 50); with since=<seq>, read the items after it, delivered or not",
  tags: ['Scheduling'],
  auth: 'api_key',
  query: S.NotificationsQuery,
  writes: true, // drains: the items answered are marked delivered
  success: { status: 200, description: 'Notifications (without since: now marked delivered)', schema: S.NotificationsResult },
  errors: [],
  handler: async ({ db, actor, query, now }) => {
    const includeOwn = query.include_own === 'true';
    // Own events are never pending (docs/webhooks.md "Own events"): they are read from a seq.
    if (includeOwn && query.since === undefined) throw invalidField('include_own', 'reads with since (own events are never drained); pass since=0 for all kept');
    return { body: { notifications: query.since === undefined ? await drainNotifications(db, actor.agentId, now) : await notificationsSince(db, actor.agentId, query.since, now, includeOwn) } };
  },
});

export const auditLogOp = defineOperation({
  operationId: 'queryAuditLog',
  method: 'GET',
  path: '/v1/audit-log',
  summary: 'Decisions (accept, reject, counter_propose) and administrative changes, newest first',
  tags: ['Scheduling'],
  auth: 'api_key',
  permission: 'read_audit',
  query: S.AuditQuery,
  success: { status: 200, description: 'A page of audit entries', schema: S.AuditResult },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query }) => {
    // org:* agents may read every owner's decisions; user-scoped agents only their owner's.
    const scoped = Boolean(query.owner_email) || parseOwnerScope(actor.ownerScope)?.kind === 'user';
    const ownerEmail = scoped ? resolveOwnerEmail(actor, query.owner_email) : undefined;
    return {
      body: await queryAudit(db, actor.customerId, {
        ownerEmail,
        from: query.from ? date(query.from) : undefined,
        to: query.to ? date(query.to) : undefined,
        outcome: query.outcome,
        action: query.action,
        actorKind: query.actor_kind,
        agentId: query.agent_id === 'me' ? actor.agentId : query.agent_id,
        limit: query.limit,
        cursor: query.cursor,
      }),
    };
  },
});
