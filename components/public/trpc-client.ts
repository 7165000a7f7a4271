import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@/server/trpc/router';

/**
 * The public pages' tRPC client: the vanilla client (no TanStack Query, no
 * React provider) over the same `/api/trpc` endpoint and router as the
 * dashboard. Loaded on first use by ./api.ts, not with the page.
 */
export function createPublicClient() {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: '/api/trpc' })] });
}
