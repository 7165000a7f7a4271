import { z } from 'zod';
import { agentView, createAgent, listAgentsWithKeys, mintApiKey, revokeApiKey, updateAgent } from '@/server/domain/agentService';
import { AgentCreateBody, AgentKeyParams, AgentPatchBody, KeyCreateBody } from '@/server/schemas/admin';
import { Id } from '@/server/schemas/common';
import { adminProcedure, router } from '../../init';

/**
 * Agents and their API keys (POST/PATCH /v1/agents, POST/DELETE
 * /v1/agents/{id}/keys): the same domain calls, with the admin owner as the
 * actor (recorded in the audit log; no agent whose permissions would limit the grant).
 */
export const agentsRouter = router({
  list: adminProcedure.query(async ({ ctx }) => ({ agents: await listAgentsWithKeys(ctx.db, ctx.owner.customerId) })),

  create: adminProcedure.input(AgentCreateBody).mutation(async ({ ctx, input }) => agentView(await createAgent(ctx.db, ctx.owner.customerId, ctx.actor, input))),

  update: adminProcedure
    .input(z.strictObject({ agent_id: Id, patch: AgentPatchBody }))
    .mutation(async ({ ctx, input }) => agentView(await updateAgent(ctx.db, ctx.owner.customerId, ctx.actor, input.agent_id, input.patch, ctx.now()))),

  /** The plaintext key is in this answer only (stored as a hash). */
  mintKey: adminProcedure
    .input(KeyCreateBody.extend({ agent_id: Id }))
    .mutation(async ({ ctx, input }) => mintApiKey(ctx.db, ctx.owner.customerId, ctx.actor, input.agent_id, input.name ?? null, ctx.now(), input.display_time_zone ?? null)),

  revokeKey: adminProcedure
    .input(AgentKeyParams)
    .mutation(async ({ ctx, input }) => revokeApiKey(ctx.db, ctx.owner.customerId, ctx.actor, input.id, input.key_id, ctx.now())),
});
