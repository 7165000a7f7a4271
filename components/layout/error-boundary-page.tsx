'use client';

import { lazy, Suspense } from 'react';
import type { ErrorWords } from './error-message';

type Props = { error: Error & { digest?: string }; reset: () => void; home?: { href: string; label: string }; framed?: boolean; words?: ErrorWords };

/**
 * What an error.tsx renders: the error page's look (components/layout/error-message.tsx)
 * loaded when an error happens, not with every page. Next.js loads each segment's error
 * boundary up front, so whatever it imports counts toward every page's first-load
 * JavaScript, the public pages' budget included (docs/benchmarks.md "Browser pages").
 * Until the look arrives the page already says what happened; if it cannot load (the
 * network is gone), the failure reaches app/global-error.tsx, which needs nothing.
 */
const ErrorMessage = lazy(() => import('./error-message').then((m) => ({ default: m.ErrorMessage })));

export function ErrorBoundaryPage(props: Props) {
  return (
    <>
      <title>{props.words?.title ?? 'Something went wrong'}</title>
      <Suspense fallback={<p className="mx-auto max-w-xl px-4 py-10 text-lg font-semibold">{props.words?.title ?? 'Something went wrong'}</p>}>
        <ErrorMessage {...props} />
      </Suspense>
    </>
  );
}
