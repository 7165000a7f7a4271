import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ArrowLeft, CheckCircle2, XCircle } from 'lucide-react';
import { Alert, Badge, Card, CardContent, CardHeader, CardTitle, PageHeader } from '@/components/ui';
import { ProposalFacts, proposalTitle } from '@/components/proposals/proposal-summary';
import { ReviewActions } from '@/components/proposals/review-actions';
import { CandidateChoiceProvider } from '@/components/ui/candidate-choice';
import { initialChoice, optionKey, optionLines, type ReviewOption } from '@/components/proposals/options';
import { CandidateCaption } from '@/components/calendar/candidate-layer';
import { WeekGrid } from '@/components/calendar/week-grid';
import { WeekLegend } from '@/components/calendar/legend';
import { formatSlot } from '@/components/ui/time-format';
import { readServerError } from '@/components/ui/server-error';
import { statusForCode, type DomainErrorCode } from '@/server/domain/errorCodes';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Review request · Agent Scheduler' };

/** One proposal on the owner's week (proposals.review), with approve and decline (proposals.approve / decline). */
/** A reason as a sentence: a full stop only when it does not already end in one ("Can we do Tuesday?" stays as it is). */
function endSentence(text: string): string {
  return /[.!?…]["')\]]?$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

export default async function ProposalPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const trpc = await serverTrpc();
  // The server-side caller throws the procedure's error as is: an unknown proposal is a DomainError
  // (PROPOSAL_NOT_FOUND, 404) inside it, not a TRPCError coded NOT_FOUND.
  const review = await trpc.proposals.review({ proposal_id: id }).catch((err: unknown) => {
    const refusal = readServerError(err);
    if (refusal.trpcCode === 'NOT_FOUND' || (refusal.domain && statusForCode(refusal.code as DomainErrorCode) === 404)) return null;
    throw err;
  });
  if (!review) notFound();
  const { proposal: p, week, candidates, verdicts, meeting_classes } = review;
  const tz = week.owner.time_zone;
  const titles = new Map(week.events.map((e) => [e.id, `${e.title ?? (e.kind === 'hold' ? 'a hold' : 'a booking')}${e.meeting_class ? ` (${e.meeting_class})` : ''}`]));
  const options: ReviewOption[] = candidates.map((c, i) => ({
    start: c.start,
    end: c.end,
    label: formatSlot(c.start, c.end, tz),
    displaced: verdicts[i]?.displaced,
    notes: [
      // What it would cancel is said once (displaced); other overlaps (higher priority, holds) are named here.
      // A request to move never conflicts with the meeting it moves, nor an agent's held booking with its own hold.
      ...c.conflicts.filter((cid) => cid !== p.moves?.booking_id && cid !== p.hold_id && !verdicts[i]?.displaced.some((d) => d.id === cid)).map((cid) => `overlaps ${titles.get(cid) ?? 'a booking'}`),
      ...(verdicts[i]?.verdict === 'refused' ? ['arbitration would refuse this time'] : []),
      ...(c.in_hard_block ? ['inside a hard block'] : []),
      ...(c.outside_working_hours ? ['outside working hours'] : []),
    ],
  }));
  const pending = p.status === 'pending_review';
  // The week shows each candidate with what it runs into, in the list's words.
  const described = options.map((o, i) => {
    const lines = optionLines(o);
    return { key: optionKey(o), n: i + 1, label: o.label, summary: lines.map((l) => l.text).join('; '), conflict: lines.some((l) => l.danger) };
  });
  const freeText = p.meeting_class ? undefined : { classes: meeting_classes, durationMinutes: p.duration_minutes ?? 30 };
  return (
    <>
      <Link href="/dashboard" className="mb-3 inline-flex items-center gap-1 text-sm">
        <ArrowLeft className="size-4" aria-hidden /> Inbox
      </Link>
      <PageHeader title={proposalTitle(p)} description={`Times in ${tz}`} actions={<Badge tone={pending ? 'warn' : p.status === 'booked' ? 'ok' : 'neutral'}>{p.status.replace(/_/g, ' ')}</Badge>} />
      <CandidateChoiceProvider initial={initialChoice(options, !!freeText)}>
        <div className="grid gap-5 lg:grid-cols-[22rem_minmax(0,1fr)]">
          <div className="flex flex-col gap-4">
            <Card>
              <CardHeader>
                <CardTitle>Request</CardTitle>
              </CardHeader>
              <CardContent>
                <ProposalFacts p={p} timeZone={tz} showCandidates={false} />
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>Decision</CardTitle>
              </CardHeader>
              <CardContent>
                {pending ? (
                  <ReviewActions
                    proposalId={p.proposal_id}
                    options={options}
                    timeZone={tz}
                    freeText={freeText}
                  />
                ) : p.status === 'booked' ? (
                  <Alert tone="ok" data-testid="review-outcome">
                    <CheckCircle2 aria-hidden />
                    {p.moves ? 'Approved: the meeting moved to the new time. The requester has been told.' : p.hold_id ? 'Approved and booked. The agent has been told.' : 'Approved and booked. The requester has been told.'}{' '}
                    {p.booking_id && <Link href={`/dashboard/calendar?week=${week.week_start}&booking=${p.booking_id}`}>See the booking</Link>}
                  </Alert>
                ) : (
                  <Alert tone="info" data-testid="review-outcome">
                    <XCircle aria-hidden />
                    {p.status === 'declined' ? (p.decline_reason ? `Declined: ${endSentence(p.decline_reason)}` : 'Declined.') : `This request is ${p.status.replace(/_/g, ' ')}.`}
                  </Alert>
                )}
              </CardContent>
            </Card>
          </div>
          <section aria-labelledby="week-heading" className="flex min-w-0 flex-col gap-3">
            <h2 id="week-heading" className="text-base font-semibold">
              Your week
            </h2>
            <WeekLegend week={week} withCandidates={pending} />
            {pending && described.length > 0 && <CandidateCaption items={described} />}
            <WeekGrid week={week} candidates={pending ? candidates.map((c, i) => ({ ...c, key: described[i].key, summary: described[i].summary })) : []} />
          </section>
        </div>
      </CandidateChoiceProvider>
    </>
  );
}
