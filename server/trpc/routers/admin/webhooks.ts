import { z } from 'zod';
import { getConfig } from '@/server/config';
import { getAgent } from '@/server/domain/agentService';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, testWebhook, updateWebhook, type EndpointsOf } from '@/server/domain/webhooks/endpoints';
import { Id } from '@/server/schemas/common';
import { WebhookCreateBody, WebhookPatchBody } from '@/server/schemas/webhooks';
import { adminProcedure, router, type TrpcContext } from '../../init';
import type { OwnerSession } from '@/server/auth/ownerSession';

/** The same outbound guard setting /v1/webhooks uses (OUTBOUND_ALLOW_PRIVATE; docs/reliability.md "Outbound requests"). */
const allowPrivate = () => getConfig().outboundAllowPrivate;

/** The agent's endpoints, once the agent is known to be one of the admin's customer's (else AGENT_NOT_FOUND). */
async function endpointsOf(ctx: TrpcContext & { owner: OwnerSession }, agentId: string): Promise<EndpointsOf> {
  const agent = await getAgent(ctx.db, ctx.owner.customerId, agentId);
  return { customerId: agent.customerId, agentId: agent.id };
}

const AgentInput = z.strictObject({ agent_id: Id });
const EndpointInput = z.strictObject({ agent_id: Id, webhook_id: Id });

/**
 * An agent's webhook endpoints, managed by an admin owner (the /v1/webhooks
 * calls, which an agent makes with its own key): the same domain functions,
 * URL checks and errors.
 */
export const webhooksRouter = router({
  list: adminProcedure.input(AgentInput).query(async ({ ctx, input }) => ({ webhooks: await listWebhooks(ctx.db, await endpointsOf(ctx, input.agent_id)) })),

  /** The signing secret is in this answer only (as POST /v1/webhooks). */
  create: adminProcedure
    .input(WebhookCreateBody.extend({ agent_id: Id }))
    .mutation(async ({ ctx, input: { agent_id, ...body } }) => createWebhook(ctx.db, await endpointsOf(ctx, agent_id), body, allowPrivate(), ctx.now())),

  update: adminProcedure
    .input(EndpointInput.extend({ patch: WebhookPatchBody }))
    .mutation(async ({ ctx, input }) => updateWebhook(ctx.db, await endpointsOf(ctx, input.agent_id), input.webhook_id, input.patch, allowPrivate(), ctx.now())),

  delete: adminProcedure.input(EndpointInput).mutation(async ({ ctx, input }) => deleteWebhook(ctx.db, await endpointsOf(ctx, input.agent_id), input.webhook_id)),

  /** Queue a webhook.test delivery (through the outbox, like any event). */
  test: adminProcedure.input(EndpointInput).mutation(async ({ ctx, input }) => testWebhook(ctx.db, await endpointsOf(ctx, input.agent_id), input.webhook_id, ctx.now())),

  /** The delivery log, newest first. */
  deliveries: adminProcedure
    .input(EndpointInput.extend({ limit: z.int().min(1).max(200).default(20), cursor: Id.optional() }))
    .query(async ({ ctx, input }) => listDeliveries(ctx.db, await endpointsOf(ctx, input.agent_id), input.webhook_id, input.limit, input.cursor)),
});
