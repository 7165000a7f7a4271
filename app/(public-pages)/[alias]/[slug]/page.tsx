import type { Metadata } from 'next';
import { cache } from 'react';
import { PageHeader } from '@/components/ui/page-header';
import { BookingFlow } from '@/components/public/booking-flow';
import { ArrowLeft, Users } from '@/components/public/icons';
import { isLimited, loadOr404 } from '@/components/public/load';
import { Limited, REQUESTER_DESCRIPTION } from '@/components/public/limited';
import { serverTrpc } from '@/server/trpc/caller';

/** A meeting type's page (`/{alias}/{slug}`): suggested times in the requester's zone, then the request form. */
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ alias: string; slug: string }> };

/**
 * Once per request: generateMetadata and the page share it (React `cache`, keyed by the
 * arguments). One call: the type and the first page of suggestions for the shortest length,
 * sent with the HTML (the browser formats them in its zone).
 */
const load = cache(async (alias: string, slug: string) => loadOr404(async () => (await serverTrpc()).requester.meetingType({ link: alias, slug, suggested_times: true })));

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const p = await params;
  const data = await load(p.alias, p.slug);
  if (isLimited(data)) return { title: 'Book a meeting · Agent Scheduler', description: REQUESTER_DESCRIPTION };
  return { title: `${data.owner_name ? `${data.title} with ${data.owner_name}` : data.title} · Agent Scheduler`, description: REQUESTER_DESCRIPTION };
}

export default async function MeetingTypePage({ params }: Params) {
  const p = await params;
  const data = await load(p.alias, p.slug);
  if (isLimited(data)) return <Limited />;
  return (
    <div className="flex flex-col gap-6">
      {/* A plain link (a full page load), not next/link: its client code is not worth it here (docs/benchmarks.md "Browser pages"). */}
      <a href={`/${p.alias}`} className="flex items-center gap-1 self-start text-sm">
        <ArrowLeft className="size-4" aria-hidden />
        All meetings
      </a>
      <PageHeader
        title={data.title}
        description={
          <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
            {data.owner_name && <span>With {data.owner_name}</span>}
            {data.attendee_limit !== null && (
              <span className="flex items-center gap-1">
                <Users className="size-4" aria-hidden />
                {data.attendee_limit === 1 ? 'Just you' : `Up to ${data.attendee_limit} people`}
              </span>
            )}
          </span>
        }
      />
      {data.description && (
        <section aria-label="About this meeting" className="-mt-2 whitespace-pre-line rounded-lg border border-line bg-surface p-4" data-testid="type-description">
          {data.description}
        </section>
      )}
      <p className={data.description ? undefined : '-mt-2'}>
        Pick a length and a time below, then tell {data.owner_name ?? 'the calendar owner'} who you are. You confirm your email address, and{' '}
        {data.books_instantly
          ? 'the time is booked at once if it is still free (otherwise it waits for the owner’s review).'
          : data.several_hosts
            ? 'one of them then accepts or declines your request for all of them.'
            : `${data.owner_name ?? 'the owner'} then accepts or declines your request.`}
      </p>
      <BookingFlow link={p.alias} slug={data.slug} title={data.title} durations={data.duration_minutes} attendeeLimit={data.attendee_limit} ownerName={data.owner_name} initialTimes={data.suggested_times} />
    </div>
  );
}
