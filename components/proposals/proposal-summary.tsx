import { ArrowRight, Bot, CalendarClock, Globe, MessageSquare, ShieldCheck, Users } from 'lucide-react';
import type { PendingProposalView } from '@/server/domain/publicScheduling/review';
import { Badge } from '@/components/ui/badge';
import { formatSlot } from '@/components/ui/time-format';

/** What a proposal asks for: who, with whom, the message, the requested window and the candidate times. */
/** The proposal's title: the one its booking will take on approval (the domain's approvalTitle). */
export function proposalTitle(p: PendingProposalView): string {
  return p.title;
}

export function ProposalFacts({ p, timeZone, showCandidates = true }: { p: PendingProposalView; timeZone: string; showCandidates?: boolean }) {
  return (
    <div className="flex flex-col gap-3 text-sm">
      <div className="flex flex-wrap gap-1.5">
        <Badge tone={p.origin === 'public' ? 'accent' : 'neutral'}>
          {p.origin === 'public' ? <Globe aria-hidden /> : <Bot aria-hidden />}
          {p.origin === 'public' ? 'Public link' : 'Agent'}
        </Badge>
        {p.moves && (
          <Badge tone="warn" data-testid="move-badge">
            <CalendarClock aria-hidden />
            Request to move
          </Badge>
        )}
        {p.hold_id && (
          // An agent's booking an approval rule held (docs/dashboard.md "Approvals"): its time is held until you decide.
          <Badge tone="warn" data-testid="held-badge">
            <ShieldCheck aria-hidden />
            Needs your approval · time held
          </Badge>
        )}
        {p.meeting_class && <Badge>{p.meeting_class}</Badge>}
        {p.duration_minutes && <Badge>{p.duration_minutes} min</Badge>}
        {p.repeat_weeks && <Badge tone="accent">Weekly · {p.repeat_weeks} meetings, all or none</Badge>}
      </div>
      <dl className="grid grid-cols-[6.5rem_1fr] gap-x-3 gap-y-1.5">
        <dt className="text-muted">Requester</dt>
        <dd>
          {p.requester ? (
            <>
              {p.requester.name ? `${p.requester.name} ` : ''}
              <span className="text-muted">{p.requester.name ? `<${p.requester.email}>` : p.requester.email}</span>
            </>
          ) : (
            <>{p.agent_name ?? 'Agent'} (agent)</>
          )}
        </dd>
        <dt className="text-muted">
          <Users className="mr-1 inline size-3.5 align-[-0.1em]" aria-hidden />
          Attendees
        </dt>
        <dd>{p.attendees.length ? p.attendees.map((a) => (a.name ? `${a.name} <${a.email}>` : a.email)).join(', ') : 'none listed'}</dd>
        {p.hosts.length > 1 && (
          <>
            <dt className="text-muted">Hosts</dt>
            <dd data-testid="proposal-hosts">{p.hosts.map((h) => h.name ?? h.email).join(', ')} (any of you decides for all)</dd>
          </>
        )}
        {p.moves && p.requested_window ? (
          // A request to move a booked meeting (docs/public-scheduling.md "Asking to move"): its time now, and the one asked for.
          <>
            <dt className="text-muted">Move</dt>
            <dd data-testid="move-times" className="flex flex-col gap-0.5">
              <span>
                <span className="text-muted">from </span>
                <span className="line-through decoration-1">{formatSlot(p.moves.start, p.moves.end, timeZone)}</span>
              </span>
              <span className="flex items-center gap-1">
                <ArrowRight className="size-3.5 shrink-0" aria-hidden />
                <span className="sr-only">to </span>
                <span className="font-medium">{formatSlot(p.requested_window.start, p.requested_window.end, timeZone)}</span>
              </span>
            </dd>
          </>
        ) : (
          p.requested_window && (
            <>
              <dt className="text-muted">{p.origin === 'public' || p.hold_id ? 'Asked for' : 'Window'}</dt>
              <dd>{formatSlot(p.requested_window.start, p.requested_window.end, timeZone)}</dd>
            </>
          )
        )}
        {showCandidates && p.candidates.length > 0 && (
          <>
            <dt className="text-muted">Candidates</dt>
            <dd>
              <ol className="flex flex-col gap-0.5">
                {p.candidates.map((c, i) => (
                  <li key={c.start}>
                    <span className="text-muted">{i + 1}.</span> {formatSlot(c.start, c.end, timeZone)}
                  </li>
                ))}
              </ol>
            </dd>
          </>
        )}
        {p.reason && (
          <>
            <dt className="text-muted">Reason</dt>
            <dd>{p.reason}</dd>
          </>
        )}
      </dl>
      {p.message && proposalTitle(p) !== p.message.trim().replace(/[.!]$/, '') && (
        <blockquote className="flex gap-2 rounded-md bg-surface-2 px-3 py-2">
          <MessageSquare className="mt-0.5 size-4 shrink-0 text-muted" aria-hidden />
          <span className="whitespace-pre-line">{p.message}</span>
        </blockquote>
      )}
    </div>
  );
}
