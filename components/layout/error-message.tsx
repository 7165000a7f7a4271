'use client';

import { useEffect } from 'react';
import { buttonClasses } from '@/components/ui/button-classes';
import { MessagePage } from './message-page';
import { PublicShell } from './public-shell';

/**
 * What the error pages (app/error.tsx and its public and dashboard variants,
 * through error-boundary-page.tsx, which loads this when an error happens)
 * show: a retry that renders the page again, a way home where there is one
 * (`home`; public pages have none), and the reference Next.js gives a server
 * failure (`digest`, the id in the server's log), never the error's text.
 *
 * The way home is a plain link: a full page load, which also starts the failed
 * app afresh.
 */
export function ErrorMessage({ error, reset, home, framed }: { error: Error & { digest?: string }; reset: () => void; home?: { href: string; label: string }; framed?: boolean }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const page = (
    <MessagePage
      label="Error"
      title="Something went wrong"
      actions={
        <>
          <button type="button" onClick={reset} className={buttonClasses(home ? 'secondary' : 'primary')}>
            Try again
          </button>
          {home && (
            <a href={home.href} className={buttonClasses('primary')}>
              {home.label}
            </a>
          )}
        </>
      }
    >
      <p>This page could not be shown. Trying again often helps; if it keeps happening, please try again later.</p>
      {error.digest && <p className="text-sm text-muted">Reference: <code className="font-mono">{error.digest}</code></p>}
    </MessagePage>
  );
  // `framed`: outside the booking pages and the dashboard, which bring their own frame.
  return framed ? <PublicShell>{page}</PublicShell> : page;
}
