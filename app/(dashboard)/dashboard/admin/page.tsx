import type { Metadata } from 'next';
import Link from 'next/link';
import { Alert, Card, CardContent, CardDescription, CardHeader, CardTitle, PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Administration · Agent Scheduler' };

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The console opens on an overview: owners, links, today's requests (admin.owners.overview; docs/dashboard.md "Overview"). */
export default async function AdminOverviewPage() {
  const o = await (await serverTrpc()).admin.owners.overview();
  const r = o.requests_today;
  return (
    <>
      <PageHeader title="Overview" description="Your organisation at a glance; each section has its own page above." />
      <div className="grid gap-4 md:grid-cols-3">
        <Card>
          <CardHeader>
            <CardTitle>
              <Link href="/dashboard/admin/owners">Owners</Link>
            </CardTitle>
            <CardDescription>{plural(o.owners.total, 'calendar owner', 'calendar owners')}</CardDescription>
          </CardHeader>
          <CardContent className="flex flex-col gap-2 text-sm">
            {o.owners.without_working_hours.length > 0 && (
              <Alert tone="warn" data-testid="overview-no-hours">
                No working hours, so public pages leave them out: {o.owners.without_working_hours.join(', ')}.
              </Alert>
            )}
            {o.owners.without_calendar.length > 0 && (
              <Alert tone="warn">No usable calendar, so nothing can be booked with them: {o.owners.without_calendar.join(', ')}.</Alert>
            )}
            {!o.owners.without_working_hours.length && !o.owners.without_calendar.length && <p className="text-muted">Every owner has working hours and a calendar.</p>}
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>
              <Link href="/dashboard/admin/public-scheduling">Public links</Link>
            </CardTitle>
            <CardDescription>{plural(o.links.length, 'booking link', 'booking links')}</CardDescription>
          </CardHeader>
          <CardContent>
            {o.links.length ? (
              <ul className="flex flex-col gap-1 text-sm">
                {o.links.map((l) => (
                  <li key={l.alias}>
                    <a href={`/${l.alias}`}>/{l.alias}</a>
                    {l.title ? <span className="text-muted"> · {l.title}</span> : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-muted">No link yet: requesters cannot propose meetings.</p>
            )}
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Today&rsquo;s requests</CardTitle>
            <CardDescription>Received since midnight in your zone</CardDescription>
          </CardHeader>
          <CardContent>
            <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm" data-testid="overview-requests">
              <dt>Received</dt>
              <dd className="tabular-nums">{r.received}</dd>
              <dt>Waiting for review</dt>
              <dd className="tabular-nums">{r.waiting_for_review}</dd>
              <dt>Booked</dt>
              <dd className="tabular-nums">{r.booked}</dd>
              <dt>Declined</dt>
              <dd className="tabular-nums">{r.declined}</dd>
            </dl>
          </CardContent>
        </Card>
      </div>
    </>
  );
}
