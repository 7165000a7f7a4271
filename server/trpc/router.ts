import { endAllOwnerSessions, listOwnerSessions } from '@/server/domain/ownerSessions';
import { checkHealth } from '@/server/health';
import { ownerProcedure, publicProcedure, router } from './init';
import { calendarRouter } from './routers/calendar';
import { calendarsRouter } from './routers/calendars';
import { proposalsRouter } from './routers/proposals';
import { approvalsRouter } from './routers/approvals';
import { requesterRouter } from './routers/requester';
import { agentsRouter } from './routers/admin/agents';
import { auditRouter } from './routers/admin/audit';
import { meetingClassesRouter } from './routers/admin/meetingClasses';
import { ownersRouter } from './routers/admin/owners';
import { poolsRouter } from './routers/admin/pools';
import { publicSchedulingRouter } from './routers/admin/publicScheduling';
import { requestersRouter } from './routers/admin/requesters';
import { scheduleRouter } from './routers/schedule';
import { webhooksRouter } from './routers/admin/webhooks';

/** The browser's API: the dashboard and the public booking pages (agents use the REST API under /v1). */
export const appRouter = router({
  calendar: calendarRouter,
  /** Connected calendars (CalDAV, Google, Microsoft 365). */
  calendars: calendarsRouter,
  proposals: proposalsRouter,
  /** The owner's approval policy for agent bookings on their calendar. */
  approvals: approvalsRouter,
  /** The public booking pages (no session). */
  requester: requesterRouter,
  schedule: scheduleRouter,
  admin: router({
    agents: agentsRouter,
    audit: auditRouter,
    meetingClasses: meetingClassesRouter,
    owners: ownersRouter,
    pools: poolsRouter,
    publicScheduling: publicSchedulingRouter,
    requesters: requestersRouter,
    webhooks: webhooksRouter,
  }),
  session: router({
    /** The signed-in owner (UNAUTHORIZED when nobody is). */
    me: ownerProcedure.query(({ ctx }) => ({ owner_email: ctx.owner.email, role: ctx.owner.role })),
    /** The owner's signed-in browsers, this one first (docs/dashboard.md "Sessions"). */
    list: ownerProcedure.query(async ({ ctx }) => ({ sessions: await listOwnerSessions(ctx.db, ctx.owner.ownerId, ctx.owner.sessionId ?? null) })),
    /** "Sign out everywhere": every browser of the owner, this one included, must sign in again. */
    signOutEverywhere: ownerProcedure.mutation(async ({ ctx }) => {
      await endAllOwnerSessions(ctx.db, ctx.owner.ownerId, ctx.now());
      return { signed_out: true as const };
    }),
  }),
  system: router({
    /** The same report as GET /api/health. */
    health: publicProcedure.query(() => checkHealth()),
  }),
});

export type AppRouter = typeof appRouter;
