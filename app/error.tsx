'use client';

import { PublicShell } from '@/components/layout/public-shell';
import { ErrorMessage } from '@/components/layout/error-message';

/** A page that failed outside the booking pages and the dashboard (which have their own): retry, or go home. */
export default function RootError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <PublicShell>
      <title>Something went wrong</title>
      <ErrorMessage error={error} reset={reset} home={{ href: '/', label: 'Go to the home page' }} />
    </PublicShell>
  );
}
