import { createMeetingClass, listMeetingClasses, meetingClassView } from '@/server/domain/meetingClassService';
import { MeetingClassCreateBody } from '@/server/schemas/admin';
import { adminProcedure, router } from '../../init';

/** Meeting classes (GET/POST /v1/meeting-classes). */
export const meetingClassesRouter = router({
  list: adminProcedure.query(async ({ ctx }) => ({ meeting_classes: (await listMeetingClasses(ctx.db, ctx.owner.customerId)).map(meetingClassView) })),
  create: adminProcedure.input(MeetingClassCreateBody).mutation(async ({ ctx, input }) => meetingClassView(await createMeetingClass(ctx.db, ctx.owner.customerId, input, ctx.actor))),
});
