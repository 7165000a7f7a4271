import type { Metadata } from 'next';
import Link from 'next/link';
import { ArrowRight, Inbox } from 'lucide-react';
import { Button, Card, CardContent, CardFooter, CardHeader, CardTitle, PageHeader } from '@/components/ui';
import { ProposalFacts, proposalTitle } from '@/components/proposals/proposal-summary';
import { UpcomingReminders } from '@/components/calendar/upcoming-reminders';
import { formatDateTime } from '@/components/ui/time-format';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Inbox · Agent Scheduler' };

/** Proposals awaiting the owner's review, newest first (proposals.listPending), and the next reminders due (calendar.reminders). */
export default async function InboxPage() {
  const trpc = await serverTrpc();
  const [{ proposals, time_zone }, upcoming] = await Promise.all([trpc.proposals.listPending(), trpc.calendar.reminders()]);
  return (
    <>
      <PageHeader
        title="Inbox"
        description={
          proposals.length === 0
            ? 'Nothing waits for your review.'
            : `${proposals.length} meeting request${proposals.length === 1 ? '' : 's'} awaiting your review · times in ${time_zone}`
        }
      />
      {proposals.length === 0 ? (
        <Card>
          <CardContent className="flex flex-col items-center gap-2 py-10 text-center text-muted">
            <Inbox className="size-8" aria-hidden />
            <p>When a requester or an agent asks for time with you, the request appears here.</p>
            <Link href="/dashboard/calendar">See your calendar</Link>
          </CardContent>
        </Card>
      ) : (
        <ul className="grid gap-4 lg:grid-cols-2" aria-label="Proposals awaiting review">
          {proposals.map((p) => (
            <li key={p.proposal_id}>
              <Card className="flex h-full flex-col" data-testid="proposal-card">
                <CardHeader>
                  <CardTitle>
                    <Link href={`/dashboard/proposals/${p.proposal_id}`} className="text-fg no-underline hover:underline">
                      {proposalTitle(p)}
                    </Link>
                  </CardTitle>
                  <p className="text-xs text-muted">Received {formatDateTime(p.created_at, time_zone)}</p>
                </CardHeader>
                <CardContent className="flex-1">
                  <ProposalFacts p={p} timeZone={time_zone} />
                </CardContent>
                <CardFooter>
                  <Button asChild size="sm">
                    <Link href={`/dashboard/proposals/${p.proposal_id}`}>
                      Review on your week<span className="sr-only">: {proposalTitle(p)}</span> <ArrowRight aria-hidden />
                    </Link>
                  </Button>
                </CardFooter>
              </Card>
            </li>
          ))}
        </ul>
      )}
      <UpcomingReminders reminders={upcoming.reminders} timeZone={upcoming.time_zone} />
    </>
  );
}
