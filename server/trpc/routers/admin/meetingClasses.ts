import { z } from 'zod';
import { createMeetingClass, listMeetingClasses, meetingClassView, updateMeetingClass } from '@/server/domain/meetingClassService';
import { MeetingClassCreateBody, MeetingClassParams, MeetingClassPatchBody } from '@/server/schemas/admin';
import { adminProcedure, router } from '../../init';

/** Meeting classes (GET/POST /v1/meeting-classes, PATCH /v1/meeting-classes/{name}). */
export const meetingClassesRouter = router({
  list: adminProcedure.query(async ({ ctx }) => ({ meeting_classes: (await listMeetingClasses(ctx.db, ctx.owner.customerId)).map(meetingClassView) })),
  create: adminProcedure.input(MeetingClassCreateBody).mutation(async ({ ctx, input }) => meetingClassView(await createMeetingClass(ctx.db, ctx.owner.customerId, input, ctx.actor))),
  update: adminProcedure
    .input(z.object({ ...MeetingClassParams.shape, change: MeetingClassPatchBody }))
    .mutation(async ({ ctx, input }) => meetingClassView(await updateMeetingClass(ctx.db, ctx.owner.customerId, input.name, input.change, ctx.actor, ctx.now()))),
});
