'use client';

import { lazy, Suspense, type ComponentProps } from 'react';

/** The cancel form (react-hook-form and zod) loads on the click that opens it, not with the status page (docs/benchmarks.md "Browser pages"). */
const CancelMeetingForm = lazy(() => import('./cancel-meeting-form').then((m) => ({ default: m.CancelMeetingForm })));

export function LazyCancelForm(props: ComponentProps<typeof CancelMeetingForm>) {
  return (
    <Suspense
      fallback={
        <p className="text-sm text-muted" aria-busy="true">
          Loading…
        </p>
      }
    >
      <CancelMeetingForm {...props} />
    </Suspense>
  );
}
