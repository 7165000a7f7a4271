'use client';

import { ErrorBoundaryPage } from '@/components/layout/error-boundary-page';

/** A booking page that failed, inside the requesters' frame: a retry, and no link into the service. */
export default function PublicError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorBoundaryPage error={error} reset={reset} />;
}
