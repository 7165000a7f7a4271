import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { PublicShell } from '@/components/layout/public-shell';
import { MessagePage } from '@/components/layout/message-page';
import { buttonClasses } from '@/components/ui/button-classes';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('meta');
  return { title: t('notFound'), robots: { index: false, follow: false } };
}

/**
 * An address no route has (Next.js renders it inside the root layout only).
 * Booking pages (`/{alias}`, the status page) have their own, which links to
 * nothing: app/(public-pages)/not-found.tsx; the dashboard's keeps its frame.
 * The way home is a plain link, not next/link: the root not-found is part of
 * every page's first load, public ones included (docs/benchmarks.md "Browser pages").
 */
export default async function NotFound() {
  // In the requester's language on an address a requester may have mistyped (docs/public-scheduling.md "Languages").
  const t = await getTranslations('rootNotFound');
  return (
    <PublicShell>
      <MessagePage
        label="404"
        title={t('title')}
        actions={
          // A full page load on purpose (see above); the rule would pull next/link into every page.
          // eslint-disable-next-line @next/next/no-html-link-for-pages
          <a href="/" className={buttonClasses('primary')}>
            {t('home')}
          </a>
        }
      >
        <p>{t('text')}</p>
      </MessagePage>
    </PublicShell>
  );
}
