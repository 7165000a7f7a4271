import type { Metadata } from 'next';
import { cache } from 'react';
import Link from 'next/link';
import { Card } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { minutesList } from '@/components/public/durations';
import { CredentialForm } from '@/components/public/credential-form';
import { FreeTextRequest } from '@/components/public/free-text-request';
import { ChevronRight, Clock } from '@/components/public/icons';
import { isLimited, loadOr404 } from '@/components/public/load';
import { Limited, REQUESTER_DESCRIPTION } from '@/components/public/limited';
import { serverTrpc } from '@/server/trpc/caller';

/** A public link's page (`/{alias}`): the meeting types this requester may book, and a request in their own words. */
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ alias: string }> };

/** Once per request: generateMetadata and the page share it (React `cache`). */
const load = cache(async (alias: string) => loadOr404(async () => (await serverTrpc()).requester.schedule({ link: alias })));

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const data = await load((await params).alias);
  if (isLimited(data)) return { title: 'Book a meeting · Agent Scheduler', description: REQUESTER_DESCRIPTION };
  return { title: `${data.title ?? (data.owner_name ? `Book a meeting with ${data.owner_name}` : 'Book a meeting')} · Agent Scheduler`, description: REQUESTER_DESCRIPTION };
}

export default async function LinkPage({ params }: Params) {
  const { alias } = await params;
  const data = await load(alias);
  if (isLimited(data)) return <Limited />;
  const who = data.owner_name ?? 'the calendar owner';
  return (
    <div className="flex flex-col gap-8">
      <PageHeader title={data.title ?? `Book a meeting with ${who}`} description={data.title && data.owner_name ? `With ${data.owner_name}` : undefined} />

      <section aria-labelledby="types" className="flex flex-col gap-3">
        <h2 id="types" className="text-lg font-semibold">
          Choose a meeting
        </h2>
        {data.meeting_types.length ? (
          <ul className="flex flex-col gap-3">
            {data.meeting_types.map((t) => (
              <li key={t.slug}>
                <Card className="transition-colors hover:border-accent">
                  <Link href={`/${alias}/${t.slug}`} className="flex items-center gap-3 p-4 text-fg no-underline">
                    <span className="flex flex-1 flex-col gap-0.5">
                      <span className="font-medium">{t.title}</span>
                      <span className="flex items-center gap-1.5 text-sm text-muted">
                        <Clock className="size-4" aria-hidden />
                        {minutesList(t.duration_minutes)}
                      </span>
                    </span>
                    <ChevronRight className="size-5 text-muted" aria-hidden />
                  </Link>
                </Card>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-muted">No meetings can be booked here right now. You can still send a request below.</p>
        )}
        <CredentialForm link={alias} saved={data.has_credential} rejected={data.credential_rejected} />
      </section>

      <section id="request" aria-labelledby="own-words" className="flex flex-col gap-3">
        <h2 id="own-words" className="text-lg font-semibold">
          Or ask in your own words
        </h2>
        <p className="text-sm text-muted">Describe what you need and when suits you; {who} will reply with a time.</p>
        <FreeTextRequest link={alias} ownerName={data.owner_name} />
      </section>
    </div>
  );
}
