'use client';

import { ErrorMessage } from '@/components/layout/error-message';

/** A booking page that failed, inside the requesters' frame: a retry, and no link into the service. */
export default function PublicError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <>
      <title>Something went wrong</title>
      <ErrorMessage error={error} reset={reset} />
    </>
  );
}
