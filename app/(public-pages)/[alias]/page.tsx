import type { Metadata } from 'next';
import { cache } from 'react';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { Card } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { minutesList } from '@/components/public/durations';
import { CredentialForm } from '@/components/public/credential-form';
import { FreeTextRequest } from '@/components/public/free-text-request';
import { ChevronRight, Clock } from '@/components/ui/icons';
import { isLimited, loadOr404 } from '@/components/public/load';
import { Limited } from '@/components/public/limited';
import { AwayNote, awayRedirectPath } from '@/components/public/away-note';
import { serverTrpc } from '@/server/trpc/caller';
import { forAgents } from './for-agents';
import { getFormatter, getTranslations } from 'next-intl/server';

/**
 * A public link's page (`/{alias}`): the meeting types this requester may book, and a request in their own words.
 * While the owner is away and the link redirects, the requester is sent to the colleague's link page
 * (`?away_from=` this alias), which then says who is away and until when (docs/public-scheduling.md "Away").
 */
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ alias: string }>; searchParams: Promise<{ away_from?: string | string[] }> };

/** Once per request: generateMetadata and the page share it (React `cache`). */
const load = cache(async (alias: string, awayFrom: string | undefined) => {
  const data = await loadOr404(async () => (await serverTrpc()).requester.schedule({ link: alias, ...(awayFrom ? { away_from: awayFrom } : {}) }));
  if (!isLimited(data) && data.redirect_to) redirect(awayRedirectPath(data.redirect_to, alias));
  return data;
});
/** `away_from` when it is one plausible alias (anything else is ignored, never an error). */
const awayFromOf = async (searchParams: Params['searchParams']) => {
  const v = (await searchParams).away_from;
  return typeof v === 'string' && /^[a-z0-9-]{1,64}$/.test(v) ? v : undefined;
};

export async function generateMetadata({ params, searchParams }: Params): Promise<Metadata> {
  const alias = (await params).alias;
  const data = await load(alias, await awayFromOf(searchParams));
  const t = await getTranslations('meta');
  const description = t('description');
  if (isLimited(data)) return { title: t('title', { page: t('book') }), description };
  return { title: t('title', { page: data.title ?? (data.owner_name ? t('bookWith', { owner: data.owner_name }) : t('book')) }), description, alternates: forAgents(alias) };
}

export default async function LinkPage({ params, searchParams }: Params) {
  const { alias } = await params;
  const data = await load(alias, await awayFromOf(searchParams));
  if (isLimited(data)) return <Limited />;
  const t = await getTranslations('link');
  const duration = await getTranslations('duration');
  const format = await getFormatter();
  const owner = data.owner_name;
  return (
    <div className="flex flex-col gap-8">
      <PageHeader title={data.title ?? (owner ? t('title', { owner }) : t('titleAnon'))} description={data.title && owner ? t('with', { owner }) : undefined} />
      {data.away_note && <AwayNote note={data.away_note} colleague={data.owner_name} />}

      <section aria-labelledby="types" className="flex flex-col gap-3">
        <h2 id="types" className="text-lg font-semibold">
          {t('choose')}
        </h2>
        {data.meeting_types.length ? (
          <ul className="flex flex-col gap-3">
            {data.meeting_types.map((type) => (
              <li key={type.slug}>
                <Card className="transition-colors hover:border-accent">
                  <Link href={`/${alias}/${type.slug}`} className="flex items-center gap-3 p-4 text-fg no-underline">
                    <span className="flex flex-1 flex-col gap-0.5">
                      <span className="font-medium">{type.title}</span>
                      <span className="flex items-center gap-1.5 text-sm text-muted">
                        <Clock className="size-4" aria-hidden />
                        {minutesList(duration, (items, o) => format.list(items, o), type.duration_minutes)}
                      </span>
                    </span>
                    <ChevronRight className="size-5 text-muted rtl:-scale-x-100" aria-hidden />
                  </Link>
                </Card>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-muted">{t('none')}</p>
        )}
        <CredentialForm link={alias} saved={data.has_credential} rejected={data.credential_rejected} />
      </section>

      <section id="request" aria-labelledby="own-words" className="flex flex-col gap-3">
        <h2 id="own-words" className="text-lg font-semibold">
          {t('ownWords')}
        </h2>
        <p className="text-sm text-muted">{owner ? t('ownWordsHint', { owner }) : t('ownWordsHintAnon')}</p>
        <FreeTextRequest link={alias} ownerName={data.owner_name} />
      </section>
    </div>
  );
}
