import { z } from 'zod';
import { claimDetails, ownerWeek } from '@/server/domain/weekView';
import { ownerProcedure, router } from '../init';

/** The signed-in owner's calendar: a week of bookings, holds, rules and daily hours; one booking's details and history. */
export const calendarRouter = router({
  week: ownerProcedure
    .input(z.strictObject({ week: z.iso.date().optional().describe("Any date of the week (owner's zone); default: this week") }).optional())
    .query(async ({ ctx, input }) => ownerWeek(ctx.db, ctx.owner, input?.week, ctx.now())),

  claim: ownerProcedure
    .input(z.strictObject({ id: z.string().min(1).max(64) }))
    .query(async ({ ctx, input }) => claimDetails(ctx.db, ctx.owner, input.id, ctx.now())),
});
