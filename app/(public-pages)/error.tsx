'use client';

import { ErrorBoundaryPage } from '@/components/layout/error-boundary-page';
import { useErrorWords } from '@/components/public/error-words';

/** A booking page that failed, inside the requesters' frame: a retry, and no link into the service; in the page's language. */
export default function PublicError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorBoundaryPage error={error} reset={reset} words={useErrorWords(error.digest)} />;
}
