import { getOwner, putScheduleRules, rulesView } from '@/server/domain/ownerService';
import { describeHardBlock, previewWeek } from '@/server/domain/schedulePreview';
import { RulesPutBody } from '@/server/schemas/admin';
import { ownerProcedure, router } from '../init';

/** The form's body: PUT /v1/schedule-rules without owner_email (always the signed-in owner). */
const ScheduleRulesInput = RulesPutBody.omit({ owner_email: true });

/**
 * "My schedule": the signed-in owner reads and replaces their own rules
 * (the same domain call as PUT /v1/schedule-rules) and previews a draft.
 */
export const scheduleRouter = router({
  get: ownerProcedure.query(async ({ ctx }) => {
    const rules = rulesView(await getOwner(ctx.db, ctx.owner.customerId, ctx.owner.email));
    return { ...rules, hard_block_summaries: rules.hard_blocks.map(describeHardBlock) };
  }),

  /** The coming week under draft rules, with the same validation issues saving would raise. */
  preview: ownerProcedure.input(ScheduleRulesInput).query(async ({ ctx, input }) => {
    const owner = await getOwner(ctx.db, ctx.owner.customerId, ctx.owner.email);
    const preview = previewWeek(input, owner.timeZone, ctx.now());
    return { ...preview, hard_block_summaries: (input.hard_blocks ?? []).map(describeHardBlock) };
  }),

  put: ownerProcedure
    .input(ScheduleRulesInput)
    .mutation(async ({ ctx, input }) => rulesView(await putScheduleRules(ctx.db, ctx.owner.customerId, ctx.owner.email, input, ctx.now(), ctx.actor))),
});
