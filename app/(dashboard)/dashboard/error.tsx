'use client';

import { ErrorBoundaryPage } from '@/components/layout/error-boundary-page';

/** A dashboard page that failed, inside the dashboard's frame: retry, or back to the inbox. */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorBoundaryPage error={error} reset={reset} home={{ href: '/dashboard', label: 'Back to the inbox' }} />;
}
