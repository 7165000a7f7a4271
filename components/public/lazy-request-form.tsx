'use client';

import dynamic from 'next/dynamic';

/**
 * The request form (react-hook-form and the zod schemas) loads when it is
 * needed, not with the page: a requester first looks at times, and the
 * public pages stay inside their JavaScript budget (docs/benchmarks.md).
 * `preloadRequestForm` starts the download early, on the first interaction.
 */
const load = () => import('./request-form');

export const LazyRequestForm = dynamic(() => load().then((m) => m.RequestForm), {
  ssr: false,
  loading: () => (
    <p className="text-sm text-muted" aria-busy="true">
      Loading the form…
    </p>
  ),
});

let started = false;
export function preloadRequestForm(): void {
  if (started) return;
  started = true;
  void load();
}
