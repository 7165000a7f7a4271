import type { Metadata } from 'next';
import { PublicShell } from '@/components/layout/public-shell';
import { MessagePage } from '@/components/layout/message-page';
import { buttonClasses } from '@/components/ui/button-classes';

export const metadata: Metadata = { title: 'Page not found', robots: { index: false, follow: false } };

/**
 * An address no route has (Next.js renders it inside the root layout only).
 * Booking pages (`/{alias}`, the status page) have their own, which links to
 * nothing: app/(public-pages)/not-found.tsx; the dashboard's keeps its frame.
 * The way home is a plain link, not next/link: the root not-found is part of
 * every page's first load, public ones included (docs/benchmarks.md "Browser pages").
 */
export default function NotFound() {
  return (
    <PublicShell>
      <MessagePage
        label="404"
        title="Page not found"
        actions={
          // A full page load on purpose (see above); the rule would pull next/link into every page.
          // eslint-disable-next-line @next/next/no-html-link-for-pages
          <a href="/" className={buttonClasses('primary')}>
            Go to the home page
          </a>
        }
      >
        <p>There is nothing at this address. Check it for typos, or start again from the home page.</p>
      </MessagePage>
    </PublicShell>
  );
}
