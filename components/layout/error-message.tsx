'use client';

import Link from 'next/link';
import { useEffect } from 'react';
import { buttonClasses } from '@/components/ui/button-classes';
import { MessagePage } from './message-page';

/**
 * What the error pages (app/error.tsx and its public and dashboard variants)
 * show: a retry that renders the page again, a way home where there is one
 * (`home`; public pages have none), and the reference Next.js gives a server
 * failure (`digest`, the id in the server's log), never the error's text.
 */
export function ErrorMessage({ error, reset, home }: { error: Error & { digest?: string }; reset: () => void; home?: { href: string; label: string } }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <MessagePage
      label="Error"
      title="Something went wrong"
      actions={
        <>
          <button type="button" onClick={reset} className={buttonClasses(home ? 'secondary' : 'primary')}>
            Try again
          </button>
          {home && (
            <Link href={home.href} className={buttonClasses('primary')}>
              {home.label}
            </Link>
          )}
        </>
      }
    >
      <p>This page could not be shown. Trying again often helps; if it keeps happening, please try again later.</p>
      {error.digest && <p className="text-sm text-muted">Reference: <code className="font-mono">{error.digest}</code></p>}
    </MessagePage>
  );
}
