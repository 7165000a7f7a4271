'use client';

import './globals.css';
import { PublicShell } from '@/components/layout/public-shell';
import { ErrorMessage } from '@/components/layout/error-message';

/**
 * The root layout itself failed: this replaces it, so it brings its own
 * <html> and the stylesheet. Retry, or go home.
 */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body className="min-h-dvh bg-bg text-fg antialiased">
        <title>Something went wrong</title>
        <PublicShell>
          <ErrorMessage error={error} reset={reset} home={{ href: '/', label: 'Go to the home page' }} />
        </PublicShell>
      </body>
    </html>
  );
}
