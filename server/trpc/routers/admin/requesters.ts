import { z } from 'zod';
import { allocations, audiences, requesters } from '@/server/domain/publicScheduling/admin';
import { AllocationCreateBody, AudienceCreateBody, IdentityCreateBody } from '@/server/schemas/publicAdmin';
import { Id } from '@/server/schemas/common';
import { adminProcedure, router } from '../../init';

const PAGE = { limit: 200 } as const;

/**
 * Requester identities and their rc_ credentials, audiences and allocations
 * (the /v1/public-scheduling/requester-identities, /audiences and
 * /allocations calls), with the admin owner as actor.
 */
export const requestersRouter = router({
  identities: router({
    list: adminProcedure.query(async ({ ctx }) => {
      const page = await requesters.listIdentities(ctx.db, ctx.owner.customerId, ctx.actor, PAGE);
      return { identities: page.items.map(requesters.identityView), credentials: await requesters.listCredentials(ctx.db, ctx.owner.customerId, ctx.actor) };
    }),
    create: adminProcedure.input(IdentityCreateBody).mutation(async ({ ctx, input }) => {
      const r = await requesters.createIdentity(ctx.db, ctx.owner.customerId, ctx.actor, input, ctx.now());
      return { ...requesters.identityView(r), created: r.created };
    }),
    /** The plaintext credential is in this answer only. */
    mintCredential: adminProcedure
      .input(z.strictObject({ identity_id: Id }))
      .mutation(({ ctx, input }) => requesters.mintCredential(ctx.db, ctx.owner.customerId, ctx.actor, input.identity_id, ctx.now())),
    revokeCredential: adminProcedure
      .input(z.strictObject({ identity_id: Id, credential_id: Id }))
      .mutation(({ ctx, input }) => requesters.revokeCredential(ctx.db, ctx.owner.customerId, ctx.actor, input.identity_id, input.credential_id, ctx.now())),
  }),

  audiences: router({
    list: adminProcedure.query(async ({ ctx }) => ({ audiences: (await audiences.listAudiences(ctx.db, ctx.owner.customerId, ctx.actor, PAGE)).items.map(audiences.audienceView) })),
    create: adminProcedure.input(AudienceCreateBody).mutation(async ({ ctx, input }) => audiences.audienceView(await audiences.createAudience(ctx.db, ctx.owner.customerId, ctx.actor, input, ctx.now()))),
    delete: adminProcedure
      .input(z.strictObject({ audience_id: Id }))
      .mutation(async ({ ctx, input }) => audiences.audienceView(await audiences.deleteAudience(ctx.db, ctx.owner.customerId, ctx.actor, input.audience_id, ctx.now()))),
  }),

  allocations: router({
    /** Each allocation with its use in the current period (allocations.allocationUsage: the count checkAllocation enforces). */
    list: adminProcedure.query(async ({ ctx }) => {
      const items = (await allocations.listAllocations(ctx.db, ctx.owner.customerId, ctx.actor, PAGE)).items;
      const usage = await allocations.allocationUsage(ctx.db, ctx.owner.customerId, items.map((r) => r.allocation.id), ctx.now());
      return { allocations: items.map((r) => ({ ...allocations.allocationView(r), usage: usage.get(r.allocation.id) ?? null })) };
    }),
    create: adminProcedure.input(AllocationCreateBody).mutation(async ({ ctx, input }) => allocations.allocationView(await allocations.createAllocation(ctx.db, ctx.owner.customerId, ctx.actor, input, ctx.now()))),
    delete: adminProcedure
      .input(z.strictObject({ allocation_id: Id }))
      .mutation(async ({ ctx, input }) => allocations.allocationView(await allocations.deleteAllocation(ctx.db, ctx.owner.customerId, ctx.actor, input.allocation_id, ctx.now()))),
  }),
});
