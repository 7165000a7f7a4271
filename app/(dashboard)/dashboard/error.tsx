'use client';

import { ErrorMessage } from '@/components/layout/error-message';

/** A dashboard page that failed, inside the dashboard's frame: retry, or back to the inbox. */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <>
      <title>Something went wrong</title>
      <ErrorMessage error={error} reset={reset} home={{ href: '/dashboard', label: 'Back to the inbox' }} />
    </>
  );
}
