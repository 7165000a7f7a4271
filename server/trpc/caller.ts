import { cache } from 'react';
import { headers } from 'next/headers';
import { createCallerFactory, createTrpcContext } from './init';
import { appRouter } from './router';

const createCaller = createCallerFactory(appRouter);

/**
 * The tRPC API called in-process from React server components: the same
 * procedures, input validation and owner check as /api/trpc, with the
 * context built from this page request's headers (its session cookie). One
 * caller per request (React `cache`).
 */
export const serverTrpc = cache(async () => {
  const h = await headers();
  const req = new Request(`http://${h.get('host') ?? 'localhost'}/`, { headers: new Headers(h) });
  return createCaller(await createTrpcContext({ req }));
});
