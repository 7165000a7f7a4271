import type { Metadata } from 'next';
import { MessagePage } from '@/components/layout/message-page';
import { getTranslations } from 'next-intl/server';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations('meta');
  return { title: t('notFound'), description: t('description'), robots: { index: false, follow: false } };
}

/**
 * A booking page, meeting type or status link that does not exist (or that
 * this requester may not see: the same answer). Requesters arrive from a link
 * someone gave them, so this page links to nothing of the service (no
 * dashboard, no agent guide): it says what to do instead.
 */
export default async function PublicNotFound() {
  const t = await getTranslations('notFound');
  return (
    <MessagePage label="404" title={t('title')}>
      <p>{t('text')}</p>
      <p className="text-sm text-muted">{t('hint')}</p>
    </MessagePage>
  );
}
