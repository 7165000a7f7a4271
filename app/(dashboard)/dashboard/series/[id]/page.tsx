import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ArrowLeft, Repeat } from 'lucide-react';
import { Badge, Button, Card, CardContent, CardHeader, CardTitle, PageHeader, type BadgeTone } from '@/components/ui';
import { CancelBooking } from '@/components/calendar/cancel-booking';
import { classColour } from '@/components/calendar/display';
import { formatSlot } from '@/components/ui/time-format';
import { readServerError } from '@/components/ui/server-error';
import { statusForCode, type DomainErrorCode } from '@/server/domain/errorCodes';
import type { SeriesOccurrenceView } from '@/server/domain/weekView';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Recurring series · Agent Scheduler' };

/** Each occurrence's status in the owner's words, and its badge's tone. */
const STATUS: Record<SeriesOccurrenceView['status'], { words: string; tone: BadgeTone }> = {
  confirmed: { words: 'booked', tone: 'ok' },
  cancelled: { words: 'cancelled', tone: 'neutral' },
  preempted: { words: 'preempted', tone: 'danger' },
  refused: { words: 'refused at booking', tone: 'warn' },
};

const meetings = (n: number) => (n === 1 ? '1 meeting' : `${n} meetings`);

/**
 * A recurring series as one meeting (calendar.series; docs/dashboard.md "Recurring series"): the
 * rule in words, the agent that booked it, and every occurrence with its date and time in the
 * owner's zone and its status (booked, cancelled, preempted, refused at booking). A booked one
 * opens on the calendar or is cancelled from here: it alone, it and the following ones, or the
 * whole series (calendar.cancel with scope).
 */
export default async function SeriesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const trpc = await serverTrpc();
  const [series, me] = await Promise.all([
    trpc.calendar.series({ id }).catch((err: unknown) => {
      const refusal = readServerError(err);
      if (refusal.trpcCode === 'NOT_FOUND' || refusal.trpcCode === 'BAD_REQUEST' || (refusal.domain && statusForCode(refusal.code as DomainErrorCode) === 404)) return null;
      throw err;
    }),
    trpc.session.me().catch(() => null),
  ]);
  if (!series) notFound();
  const tz = series.time_zone;
  const title = series.title ?? 'Recurring meeting';
  const { occurrences, counts } = series;
  const bookedFrom = (i: number) => occurrences.slice(i).filter((o) => o.status === 'confirmed').length;
  const tally = [
    `${counts.confirmed} booked`,
    counts.cancelled ? `${counts.cancelled} cancelled` : null,
    counts.preempted ? `${counts.preempted} preempted` : null,
    counts.refused ? `${counts.refused} refused at booking` : null,
  ].filter(Boolean);
  return (
    <>
      <PageHeader
        title={title}
        description={
          <span className="inline-flex flex-wrap items-center gap-x-1.5">
            <Repeat className="size-3.5" aria-hidden /> Recurring series of {meetings(occurrences.length)} · times in <strong>{tz}</strong>
          </span>
        }
        actions={
          <Button asChild variant="secondary" size="sm">
            <Link href={`/dashboard/calendar?week=${(occurrences.find((o) => o.status === 'confirmed') ?? occurrences[0]).date}`}>
              <ArrowLeft aria-hidden /> Calendar
            </Link>
          </Button>
        }
      />
      <div className="flex flex-col gap-5">
        <Card>
          <CardHeader>
            <CardTitle>About this series</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid grid-cols-[6.5rem_1fr] gap-x-3 gap-y-2 text-sm" data-testid="series-facts">
              <dt className="text-muted">Repeats</dt>
              <dd>{series.rule_words ?? `${meetings(occurrences.length)}, rule not recorded`}</dd>
              <dt className="text-muted">Booked by</dt>
              <dd>{series.agent ? me?.role === 'admin' ? <Link href={`/dashboard/admin/agents#agent-${series.agent.id}`}>{series.agent.name}</Link> : series.agent.name : 'none'}</dd>
              <dt className="text-muted">Class</dt>
              <dd>
                {series.meeting_class ? (
                  <span className={`${classColour(series.meeting_class)} inline-flex items-center gap-1.5`}>
                    <span className="size-2.5 rounded-full" style={{ background: 'var(--mc)' }} aria-hidden />
                    {series.meeting_class}
                  </span>
                ) : (
                  'none'
                )}
              </dd>
              <dt className="text-muted">Meetings</dt>
              <dd>{tally.join(' · ')}</dd>
            </dl>
          </CardContent>
        </Card>
        <section aria-labelledby="occurrences-heading">
          <h2 id="occurrences-heading" className="mb-2 text-base font-semibold">
            Meetings
          </h2>
          <ol className="flex flex-col divide-y divide-line rounded-lg border border-line bg-surface" aria-labelledby="occurrences-heading" data-testid="series-occurrences">
            {occurrences.map((o, i) => {
              const when = formatSlot(o.start, o.end, tz);
              const status = STATUS[o.status];
              return (
                <li key={o.booking_id ?? `refused-${o.start}`} className="flex flex-wrap items-center gap-x-3 gap-y-2 px-4 py-3 text-sm" data-status={o.status}>
                  <span className="w-6 shrink-0 text-right text-muted tabular-nums" aria-hidden>
                    {i + 1}.
                  </span>
                  {/* At least 11rem: on a phone the date stays on one line and the actions wrap under it. */}
                  <span className="flex min-w-[11rem] flex-1 flex-col">
                    <span className={o.status === 'confirmed' ? 'font-medium' : 'font-medium text-muted line-through decoration-1'}>{when}</span>
                    {o.reason && <span className="text-xs text-muted">{o.status === 'refused' ? `Refused: ${o.reason}` : o.reason}</span>}
                  </span>
                  <Badge tone={status.tone}>{status.words}</Badge>
                  {o.booking_id && (
                    <span className="ml-auto flex flex-wrap items-center gap-2">
                      <Button asChild variant="ghost" size="sm">
                        <Link href={`/dashboard/calendar?week=${o.date}&booking=${o.booking_id}`}>
                          Open<span className="sr-only"> the meeting of {when}</span>
                        </Link>
                      </Button>
                      {o.status === 'confirmed' && <CancelBooking compact bookingId={o.booking_id} title={title} series={{ when, following: bookedFrom(i), all: counts.confirmed }} />}
                    </span>
                  )}
                </li>
              );
            })}
          </ol>
        </section>
      </div>
    </>
  );
}
