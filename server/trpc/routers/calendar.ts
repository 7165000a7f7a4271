import { z } from 'zod';
import { cancelOwnBooking, claimDetails, moveOwnBooking, ownerWeek, seriesDetails } from '@/server/domain/weekView';
import { CancelBookingInput, MoveBookingInput } from '../schemas';
import { ownerProcedure, router } from '../init';
import { upcomingReminders } from '@/server/domain/reminders/views';
import { reviewerTimeZone } from '@/server/domain/publicScheduling/review';

/** The signed-in owner's calendar: a week of bookings, holds, rules and daily hours; one booking's details and history. */
export const calendarRouter = router({
  week: ownerProcedure
    .input(z.strictObject({ week: z.iso.date().optional().describe("Any date of the week (owner's zone); default: this week") }).optional())
    .query(async ({ ctx, input }) => ownerWeek(ctx.db, ctx.owner, input?.week, ctx.now())),

  claim: ownerProcedure
    .input(z.strictObject({ id: z.string().min(1).max(64) }))
    .query(async ({ ctx, input }) => claimDetails(ctx.db, ctx.owner, input.id, ctx.now())),

  /** The owner's next reminders due (docs/reliability.md "Reminders"), earliest first, with the owner's zone. */
  reminders: ownerProcedure.query(async ({ ctx }) => {
    const [reminders, time_zone] = await Promise.all([upcomingReminders(ctx.db, ctx.owner, ctx.now(), 10), reviewerTimeZone(ctx.db, ctx.owner)]);
    return { reminders, time_zone };
  }),

  /** The owner moves a confirmed booking in place (docs/api.md "Reschedule"); what gives way must be confirmed, as for an approval. */
  move: ownerProcedure
    .input(MoveBookingInput)
    .mutation(async ({ ctx, input }) =>
      moveOwnBooking(ctx.db, ctx.actor, { bookingId: input.booking_id, start: new Date(input.start), end: new Date(input.end), reason: input.reason, confirmPreemption: input.confirm_preemption }, ctx.now()),
    ),

  /** The owner cancels a confirmed booking with a reason (its agent and attendees are told, with the reason); a group booking for every host; a series occurrence with `scope`. */
  cancel: ownerProcedure
    .input(CancelBookingInput)
    .mutation(async ({ ctx, input }) => cancelOwnBooking(ctx.db, ctx.actor, { bookingId: input.booking_id, reason: input.reason, scope: input.scope }, ctx.now())),

  /** A recurring series as one meeting (docs/dashboard.md "Recurring series"): the rule in words, its agent, every occurrence with its status; by series_id or an occurrence's id. */
  series: ownerProcedure.input(z.strictObject({ id: z.string().min(1).max(64) })).query(async ({ ctx, input }) => seriesDetails(ctx.db, ctx.owner, input.id)),
});
