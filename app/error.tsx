'use client';

import { ErrorBoundaryPage } from '@/components/layout/error-boundary-page';

/** A page that failed outside the booking pages and the dashboard (which have their own): retry, or go home. */
export default function RootError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorBoundaryPage error={error} reset={reset} home={{ href: '/', label: 'Go to the home page' }} framed />;
}
