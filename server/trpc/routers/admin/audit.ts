import { queryAudit } from '@/server/domain/audit';
import { AuditQuery } from '@/server/schemas/scheduling';
import { adminProcedure, router } from '../../init';

/** The audit log (GET /v1/audit-log's filters, an agent id in agent_id), newest first, with each rejection's alternatives. */
export const auditRouter = router({
  query: adminProcedure.input(AuditQuery).query(async ({ ctx, input }) =>
    queryAudit(ctx.db, ctx.owner.customerId, {
      ownerEmail: input.owner_email,
      agentId: input.agent_id,
      from: input.from ? new Date(input.from) : undefined,
      to: input.to ? new Date(input.to) : undefined,
      outcome: input.outcome,
      action: input.action,
      actorKind: input.actor_kind,
      limit: input.limit,
      cursor: input.cursor,
      forDashboard: true,
    }),
  ),
});
