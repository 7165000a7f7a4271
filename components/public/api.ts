import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from '@/server/trpc/router';

/**
 * The requester procedures (server/trpc/routers/requester.ts) for the public
 * pages' client components. The public pages render from server-side tRPC
 * calls; what they ask later (more suggested times, a status refresh, a
 * submission) goes through the vanilla tRPC client, downloaded on the first
 * call (or on `preloadApi`), so it is not part of the first-load JavaScript
 * (docs/benchmarks.md "Browser pages"). Errors are the tRPC client's
 * (`readServerError(err).code` in ./time.ts reads the domain code).
 */
type RequesterApi = TRPCClient<AppRouter>['requester'];

let loading: Promise<{ requester: RequesterApi }> | undefined;

/** Wrapped in an object: the client is a proxy that answers every property, `then` included. */
export function requesterApi(): Promise<{ requester: RequesterApi }> {
  loading ??= import('./trpc-client').then(
    (m) => ({ requester: m.createPublicClient().requester }),
    (err: unknown) => {
      loading = undefined; // a failed download is tried again on the next call
      throw err;
    },
  );
  return loading;
}

/** Start the download early (on a first interaction). */
export function preloadApi(): void {
  void requesterApi().catch(() => undefined);
}
