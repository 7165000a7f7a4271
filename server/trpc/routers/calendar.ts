import { z } from 'zod';
import { getDb } from '@/db/client';
import { claimDetails, ownerWeek } from '@/server/domain/calendar';
import { ownerProcedure, router } from '../init';

/** The signed-in owner's calendar: a week of bookings, holds, rules and daily hours; one booking's details and history. */
export const calendarRouter = router({
  week: ownerProcedure
    .input(z.strictObject({ week: z.iso.date().optional().describe("Any date of the week (owner's zone); default: this week") }).optional())
    .query(async ({ ctx, input }) => ownerWeek(await getDb(), ctx.owner, input?.week, new Date())),

  claim: ownerProcedure
    .input(z.strictObject({ id: z.string().min(1).max(64) }))
    .query(async ({ ctx, input }) => claimDetails(await getDb(), ctx.owner, input.id, new Date())),
});
