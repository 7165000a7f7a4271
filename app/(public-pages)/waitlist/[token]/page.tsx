import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { PageHeader } from '@/components/ui/page-header';
import { isLimited, loadOr404 } from '@/components/public/load';
import { Limited } from '@/components/public/limited';
import { WaitlistEntryView } from '@/components/public/waitlist-entry';
import { serverTrpc } from '@/server/trpc/caller';

/**
 * A requester's waitlist entry (docs/public-scheduling.md "Waitlist"), reached from the join and
 * offer mails: what it waits for; while a time is held for it, confirm or decline; while waiting,
 * leave. The token is in the address: no Referer leaves the page, no indexing.
 */
export const dynamic = 'force-dynamic';
export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('meta');
  const w = await getTranslations('waitlist');
  return { title: t('title', { page: w('pageTitle') }), robots: { index: false, follow: false }, referrer: 'no-referrer' };
}

export default async function WaitlistPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const view = await loadOr404(async () => (await serverTrpc()).requester.waitlist({ token }));
  if (isLimited(view)) return <Limited />;
  const t = await getTranslations('waitlist');
  return (
    <div className="flex flex-col gap-2">
      <PageHeader title={t('pageTitle')} />
      <WaitlistEntryView token={token} initial={view} />
    </div>
  );
}
