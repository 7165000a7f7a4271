import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { isLimited, loadOr404 } from '@/components/public/load';
import { Limited } from '@/components/public/limited';
import { getTranslations } from 'next-intl/server';
import { StatusView } from '@/components/public/status-view';
import { serverTrpc } from '@/server/trpc/caller';

/**
 * A proposal's status page. Browsers reach it at the status_url itself
 * (`/public/booking-proposals/{token}`, rewritten here by next.config.mjs
 * when the request accepts HTML); API clients get JSON from the same URL.
 * The token is in the address: no Referer leaves the page, no indexing.
 */
export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('meta');
  return { title: t('title', { page: t('status') }), description: t('description'), robots: { index: false, follow: false }, referrer: 'no-referrer' };
}

export default async function StatusPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const view = await loadOr404(async () => (await serverTrpc()).requester.status({ token }));
  if (isLimited(view)) return <Limited />;
  const t = await getTranslations('meta');
  return (
    <div className="flex flex-col gap-2">
      <PageHeader title={t('status')} />
      <StatusView token={token} initial={view} />
    </div>
  );
}
