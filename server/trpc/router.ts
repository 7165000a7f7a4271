import { checkHealth } from '@/server/health';
import { publicProcedure, router } from './init';

/** The dashboard's API (browser only; agents use the REST API under /v1). */
export const appRouter = router({
  system: router({
    /** The same report as GET /api/health. */
    health: publicProcedure.query(() => checkHealth()),
  }),
});

export type AppRouter = typeof appRouter;
