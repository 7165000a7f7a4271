import { headers } from 'next/headers';
import { createCallerFactory } from './init';
import { appRouter } from './router';

const createCaller = createCallerFactory(appRouter);

/**
 * A server-side tRPC caller for the public booking pages (server
 * components): the incoming request's headers (client address, cookies),
 * nobody signed in. Rate limits apply exactly as to the browser's calls.
 */
export async function publicCaller() {
  const h = new Headers(await headers());
  const req = new Request('http://server-component.invalid/', { headers: h });
  return createCaller({ req, headers: h, owner: null });
}
