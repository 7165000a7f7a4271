import type { Metadata } from 'next';
import { cache } from 'react';
import { redirect } from 'next/navigation';
import { PageHeader } from '@/components/ui/page-header';
import { BookingFlow } from '@/components/public/booking-flow';
import { ArrowLeft, Users } from '@/components/ui/icons';
import { isLimited, loadOr404 } from '@/components/public/load';
import { Limited } from '@/components/public/limited';
import { awayRedirectPath } from '@/components/public/away-note';
import { serverTrpc } from '@/server/trpc/caller';
import { forAgents } from '../for-agents';
import { MeetingTypeJsonLd } from './json-ld';
import { getTranslations } from 'next-intl/server';

/** A meeting type's page (`/{alias}/{slug}`): suggested times in the requester's zone, then the request form. */
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ alias: string; slug: string }> };

/**
 * Once per request: generateMetadata and the page share it (React `cache`, keyed by the
 * arguments). One call: the type and the first page of suggestions for the shortest length,
 * sent with the HTML (the browser formats them in its zone).
 */
const load = cache(async (alias: string, slug: string) => {
  const data = await loadOr404(async () => (await serverTrpc()).requester.meetingType({ link: alias, slug, suggested_times: true }));
  // The owner is away and the link redirects (docs/public-scheduling.md "Away"): the colleague's link page.
  if (!isLimited(data) && 'redirect_to' in data && data.redirect_to) redirect(awayRedirectPath(data.redirect_to, alias));
  return data;
});

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const p = await params;
  const data = await load(p.alias, p.slug);
  const t = await getTranslations('meta');
  const description = t('description');
  if (isLimited(data)) return { title: t('title', { page: t('book') }), description };
  return { title: t('title', { page: data.owner_name ? t('typeWith', { type: data.title, owner: data.owner_name }) : data.title }), description, alternates: forAgents(p.alias) };
}

export default async function MeetingTypePage({ params }: Params) {
  const p = await params;
  const data = await load(p.alias, p.slug);
  if (isLimited(data)) return <Limited />;
  const t = await getTranslations('type');
  const owner = data.owner_name;
  const next = data.books_instantly ? 'instant' : data.several_hosts ? 'hosts' : 'owner';
  return (
    <div className="flex flex-col gap-6">
      {/* A plain link (a full page load), not next/link: its client code is not worth it here (docs/benchmarks.md "Browser pages"). */}
      <a href={`/${p.alias}`} className="flex items-center gap-1 self-start text-sm">
        <ArrowLeft className="size-4 rtl:-scale-x-100" aria-hidden />
        {t('all')}
      </a>
      <PageHeader
        title={data.title}
        description={
          <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
            {owner && <span>{t('with', { owner })}</span>}
            {data.attendee_limit !== null && (
              <span className="flex items-center gap-1">
                <Users className="size-4" aria-hidden />
                {t('attendees', { limit: data.attendee_limit })}
              </span>
            )}
          </span>
        }
      />
      {data.description && (
        <section aria-label={t('about')} className="-mt-2 whitespace-pre-line rounded-lg border border-line bg-surface p-4" data-testid="type-description">
          {data.description}
        </section>
      )}
      <p className={data.description ? undefined : '-mt-2'}>
        {owner ? t('howTo', { owner, next }) : t('howToAnon', { next })}
      </p>
      <MeetingTypeJsonLd alias={p.alias} type={data} />
      <BookingFlow link={p.alias} slug={data.slug} title={data.title} durations={data.duration_minutes} attendeeLimit={data.attendee_limit} ownerName={data.owner_name} booksInstantly={data.books_instantly} repeatMaxWeeks={data.repeat_weekly_max_weeks} initialTimes={data.suggested_times} />
    </div>
  );
}
