import type { Metadata } from 'next';
import Link from 'next/link';
import { PublicShell } from '@/components/layout/public-shell';
import { MessagePage } from '@/components/layout/message-page';
import { buttonClasses } from '@/components/ui/button-classes';

export const metadata: Metadata = { title: 'Page not found', robots: { index: false, follow: false } };

/**
 * An address no route has (Next.js renders it inside the root layout only).
 * Booking pages (`/{alias}`, the status page) have their own, which links to
 * nothing: app/(public-pages)/not-found.tsx; the dashboard's keeps its frame.
 */
export default function NotFound() {
  return (
    <PublicShell>
      <MessagePage
        label="404"
        title="Page not found"
        actions={
          <Link href="/" className={buttonClasses('primary')}>
            Go to the home page
          </Link>
        }
      >
        <p>There is nothing at this address. Check it for typos, or start again from the home page.</p>
      </MessagePage>
    </PublicShell>
  );
}
