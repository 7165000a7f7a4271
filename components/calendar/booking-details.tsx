import Link from 'next/link';
import { Lock, Repeat, Users } from 'lucide-react';
import { CancelBooking } from './cancel-booking';
import { MoveBooking } from './move-booking';
import type { ClaimDetails } from '@/server/domain/weekView';
import { Badge } from '@/components/ui/badge';
import { formatDateTime, formatSlot } from '@/components/ui/time-format';
import { classColour } from '@/components/calendar/display';

/** A reminder's offset in short words: "30 min", "1 h", "24 h", "2 d". */
function beforeWords(minutes: number): string {
  if (minutes % 1440 === 0 && minutes > 1440) return `${minutes / 1440} d`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return minutes > 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

const STATUS_TONE = { confirmed: 'ok', active: 'accent', cancelled: 'neutral', preempted: 'danger' } as const;

/** A booking's or hold's details and history (shown in the calendar's dialog); a group's lists its other hosts with their status. */
/** `admin`: the owner may open the agent's and the class's pages (the administration console). */
export function BookingDetails({ claim, timeZone, admin = false }: { claim: ClaimDetails; timeZone: string; admin?: boolean }) {
  return (
    <div className="flex flex-col gap-4 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={STATUS_TONE[claim.status as keyof typeof STATUS_TONE] ?? 'neutral'}>{claim.status}</Badge>
        {claim.kind === 'hold' && <Badge tone="accent">hold</Badge>}
        {claim.series && (
          <Badge tone="accent">
            <Repeat aria-hidden /> recurring series
          </Badge>
        )}
        {claim.sacred && (
          <Badge tone="warn">
            <Lock aria-hidden /> sacred
          </Badge>
        )}
      </div>
      <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-2">
        <dt className="text-muted">When</dt>
        <dd>
          {formatSlot(claim.start, claim.end, timeZone)} <span className="text-muted">({timeZone})</span>
        </dd>
        {claim.series && (
          <>
            <dt className="text-muted">Series</dt>
            <dd data-testid="claim-series">
              {claim.series.rule_words ?? 'A recurring series'} · meeting {claim.series.position} of {claim.series.total}
              <br />
              <Link href={`/dashboard/series/${claim.series.series_id}`}>See all its meetings</Link>
            </dd>
          </>
        )}
        <dt className="text-muted">Class</dt>
        <dd>
          {claim.meeting_class ? (
            <span className={`${classColour(claim.meeting_class)} inline-flex items-center gap-1.5`}>
              <span className="size-2.5 rounded-full" style={{ background: 'var(--mc)' }} aria-hidden />
              {admin ? <Link href={`/dashboard/admin/meeting-classes#class-${encodeURIComponent(claim.meeting_class)}`}>{claim.meeting_class}</Link> : claim.meeting_class}
              {claim.priority != null && <span className="text-muted">(priority {claim.priority})</span>}
            </span>
          ) : (
            'none'
          )}
        </dd>
        <dt className="text-muted">Agent</dt>
        <dd>
          {claim.agent ? (
            admin ? (
              <Link href={`/dashboard/admin/agents#agent-${claim.agent.id}`}>{claim.agent.name}</Link>
            ) : (
              claim.agent.name
            )
          ) : claim.source === 'public' ? (
            'Public booking page'
          ) : (
            'none'
          )}
        </dd>
        {claim.expires_at && (
          <>
            <dt className="text-muted">Hold expires</dt>
            <dd>{formatDateTime(claim.expires_at, timeZone)}</dd>
          </>
        )}
        {claim.group && (
          <>
            <dt className="text-muted">Other hosts</dt>
            <dd>
              <p className="mb-1 inline-flex items-center gap-1.5">
                <Users className="size-3.5" aria-hidden /> Group meeting: you and {claim.group.co_hosts.length === 1 ? '1 other host' : `${claim.group.co_hosts.length} other hosts`}
              </p>
              <ul className="flex flex-col gap-1" aria-label="Other hosts" data-testid="co-hosts">
                {claim.group.co_hosts.map((h) => (
                  <li key={h.email} className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
                    <span className="break-all">{h.name ? `${h.name} <${h.email}>` : h.email}</span>
                    <Badge tone={STATUS_TONE[h.status as keyof typeof STATUS_TONE] ?? 'neutral'}>{h.status}</Badge>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        <dt className="text-muted">Attendees</dt>
        <dd>
          {claim.attendees.length === 0 ? (
            'none listed'
          ) : (
            <ul className="flex flex-col gap-0.5">
              {claim.attendees.map((a) => (
                <li key={a.email}>
                  {a.name ? `${a.name} <${a.email}>` : a.email}
                  {a.response && a.response !== 'needs_action' && <span className="text-muted"> · {a.response}</span>}
                </li>
              ))}
            </ul>
          )}
        </dd>
        {claim.video && claim.video.status !== 'removed' && (
          <>
            <dt className="text-muted">Video</dt>
            <dd className="break-all" data-testid="claim-video">
              {claim.video.join_url ? (
                <a href={claim.video.join_url} target="_blank" rel="noopener noreferrer">
                  {claim.video.join_url}
                </a>
              ) : claim.video.status === 'pending' ? (
                'Link being made by the calendar'
              ) : (
                `No link: ${claim.video.error ?? 'the provider refused'}`
              )}
            </dd>
          </>
        )}
        {claim.reminders.length > 0 && (
          <>
            <dt className="text-muted">Reminders</dt>
            <dd>
              <ul className="flex flex-col gap-0.5" aria-label="Reminders" data-testid="booking-reminders">
                {claim.reminders.map((r) => (
                  <li key={r.offset_minutes} className="flex flex-wrap items-center gap-x-2">
                    <span>{beforeWords(r.offset_minutes)} before</span>
                    <span className="text-muted">{formatDateTime(r.sent_at ?? r.due_at, timeZone)}</span>
                    <Badge tone={r.status === 'sent' ? 'ok' : 'neutral'}>{r.status === 'pending' ? 'due' : r.status}</Badge>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {claim.description && (
          <>
            <dt className="text-muted">Notes</dt>
            <dd className="whitespace-pre-line">{claim.description}</dd>
          </>
        )}
      </dl>
      {claim.kind === 'booking' && claim.status === 'confirmed' && (
        <div className="flex flex-wrap gap-2">
          <MoveBooking bookingId={claim.id} title={claim.title ?? 'this booking'} start={claim.start} end={claim.end} timeZone={timeZone} />
          <CancelBooking
            bookingId={claim.id}
            title={claim.title ?? 'this booking'}
            coHosts={claim.group?.co_hosts.map((h) => h.name ?? h.email)}
            series={claim.series ? { when: formatSlot(claim.start, claim.end, timeZone), following: claim.series.booked_from_here, all: claim.series.booked } : undefined}
          />
        </div>
      )}
      <section aria-labelledby="history-heading">
        <h3 id="history-heading" className="mb-2 font-semibold">
          History
        </h3>
        <ol className="flex flex-col gap-2 border-l-2 border-line pl-3" data-testid="booking-history">
          {claim.history.map((h, i) => (
            <li key={i}>
              <div className={h.what === 'preempted' ? 'font-medium text-danger' : h.what === 'cancelled' ? 'font-medium' : ''}>
                {h.text}
                {h.from && h.to && (
                  <>
                    : {formatSlot(h.from.start, h.from.end, timeZone)} → {formatSlot(h.to.start, h.to.end, timeZone)}
                  </>
                )}
              </div>
              <div className="text-xs text-muted">{formatDateTime(h.at, timeZone)}</div>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
