import { z } from 'zod';
import { createOwner, listOwners, ownerView } from '@/server/domain/ownerService';
import { OwnerCreateBody } from '@/server/schemas/admin';
import { adminProcedure, router } from '../../init';

/** Calendar owners (POST /v1/owners), with role and calendars for the admin console. */
export const ownersRouter = router({
  list: adminProcedure.query(async ({ ctx }) => ({ owners: await listOwners(ctx.db, ctx.owner.customerId) })),
  create: adminProcedure
    .input(OwnerCreateBody.extend({ role: z.enum(['admin', 'member']).optional() }))
    .mutation(async ({ ctx, input }) => ownerView(await createOwner(ctx.db, ctx.owner.customerId, input))),
});
