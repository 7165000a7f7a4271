import { TRPCError } from '@trpc/server';
import { isDomainError } from '@/server/domain/errors';
import { createCallerFactory, createTrpcContext } from './init';
import { appRouter } from './router';

const createCaller = createCallerFactory(appRouter);

/**
 * The tRPC API called in-process from a route handler, with the context
 * built from that handler's own Request (its session cookie), e.g. the
 * OAuth start and callback routes under /dashboard/connections.
 */
export async function trpcForRequest(req: Request) {
  return createCaller(await createTrpcContext({ req }));
}

/** What a failed in-process call says: the domain's code, message and details, or the tRPC code for anything else. */
export function failureOf(err: unknown): { code: string; message: string; details?: unknown } {
  if (err instanceof TRPCError) {
    if (isDomainError(err.cause)) return { code: err.cause.code, message: err.cause.message, details: err.cause.details };
    return { code: err.code, message: err.message };
  }
  throw err;
}
