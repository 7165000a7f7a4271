'use client';

import { lazy, Suspense, type ComponentProps } from 'react';

/** The "Ask to move" form loads on the click that opens it, not with the status page (docs/benchmarks.md "Browser pages"). */
const MoveRequestForm = lazy(() => import('./move-request-form').then((m) => ({ default: m.MoveRequestForm })));

export function LazyMoveForm(props: ComponentProps<typeof MoveRequestForm>) {
  return (
    <Suspense
      fallback={
        <p className="text-sm text-muted" aria-busy="true">
          Loading…
        </p>
      }
    >
      <MoveRequestForm {...props} />
    </Suspense>
  );
}
