'use client';

import './globals.css';

/**
 * The root layout itself failed (or the error page's own code could not load):
 * this replaces the whole document, so it brings its own <html> and stylesheet.
 * Retry, or go home. Plain markup in the product's colours and nothing imported:
 * Next.js loads this with every page, public ones included, and it must work when
 * nothing else does (docs/benchmarks.md "Browser pages").
 */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const button = 'inline-flex h-10 items-center rounded-md border px-4 text-sm font-medium';
  return (
    <html lang="en">
      <body className="min-h-dvh bg-bg text-fg antialiased">
        <title>Something went wrong</title>
        <main id="main" className="mx-auto flex max-w-xl flex-col gap-3 px-4 py-10">
          <p className="text-sm font-medium tracking-wide text-muted uppercase">Error</p>
          <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
          <p>This page could not be shown. Trying again often helps; if it keeps happening, please try again later.</p>
          {error.digest && (
            <p className="text-sm text-muted">
              Reference: <code className="font-mono">{error.digest}</code>
            </p>
          )}
          <div className="mt-2 flex flex-wrap gap-2">
            <button type="button" onClick={reset} className={`${button} border-line bg-surface`}>
              Try again
            </button>
            {/* A full page load on purpose (see above); the rule would pull next/link into every page. */}
            {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
            <a href="/" className={`${button} border-transparent bg-accent text-accent-fg no-underline`}>
              Go to the home page
            </a>
          </div>
        </main>
      </body>
    </html>
  );
}
