'use client';

import { useEffect, type ReactNode } from 'react';
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
/** The page's words in another language (the booking pages'); English when absent. `reference`: the digest's line, its code marked up. */
export type ErrorWords = { label: string; title: string; text: string; retry: string; reference: ReactNode };

export function ErrorMessage({ error, reset, home, framed, words }: { error: Error & { digest?: string }; reset: () => void; home?: { href: string; label: string }; framed?: boolean; words?: ErrorWords }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const page = (
    <MessagePage
      label={words?.label ?? 'Error'}
      title={words?.title ?? 'Something went wrong'}
      actions={
        <>
          <button type="button" onClick={reset} className={buttonClasses(home ? 'secondary' : 'primary')}>
            {words?.retry ?? 'Try again'}
          </button>
          {home && (
            <a href={home.href} className={buttonClasses('primary')}>
              {home.label}
            </a>
          )}
        </>
      }
    >
      <p>{words?.text ?? 'This page could not be shown. Trying again often helps; if it keeps happening, please try again later.'}</p>
      {error.digest && (
        <p className="text-sm text-muted">
          {words ? words.reference : <>Reference: <code className="font-mono">{error.digest}</code></>}
        </p>
      )}
    </MessagePage>
  );
  // `framed`: outside the booking pages and the dashboard, which bring their own frame.
  return framed ? <PublicShell>{page}</PublicShell> : page;
}
