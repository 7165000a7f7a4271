import { z } from 'zod';
import { createPool, deletePool, listPools, poolAssignmentsReport, poolView, updatePool } from '@/server/domain/pools/poolService';
import { PoolCreateBody, PoolPatchBody } from '@/server/schemas/pools';
import { adminProcedure, router } from '../../init';

const PoolId = z.strictObject({ pool_id: z.string().min(1).max(64) });

/** Pools (/v1/pools): the same domain calls; the list carries each pool's last 30 days of assignments against its weights. */
export const poolsRouter = router({
  list: adminProcedure.query(async ({ ctx }) => {
    const now = ctx.now();
    const pools = await listPools(ctx.db, ctx.owner.customerId, ctx.actor);
    return {
      pools: await Promise.all(
        pools.map(async (p) => ({ ...poolView(p), assignments: (await poolAssignmentsReport(ctx.db, ctx.owner.customerId, ctx.actor, p.id, {}, now)).members })),
      ),
    };
  }),
  create: adminProcedure.input(PoolCreateBody).mutation(async ({ ctx, input }) => poolView(await createPool(ctx.db, ctx.owner.customerId, ctx.actor, input, ctx.now()))),
  update: adminProcedure
    .input(PoolPatchBody.and(PoolId))
    .mutation(async ({ ctx, input: { pool_id, ...patch } }) => poolView(await updatePool(ctx.db, ctx.owner.customerId, ctx.actor, pool_id, patch, ctx.now()))),
  delete: adminProcedure.input(PoolId).mutation(async ({ ctx, input }) => poolView(await deletePool(ctx.db, ctx.owner.customerId, ctx.actor, input.pool_id, ctx.now()))),
});
