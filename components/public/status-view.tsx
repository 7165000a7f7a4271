'use client';

import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { PublicProposalPage } from '@/server/domain/publicScheduling/requester';
import { Alert } from '@/components/ui/alert';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { buttonClasses } from '@/components/ui/button-classes';
import { Card, CardContent } from '@/components/ui/card';
import { preloadApi, requesterApi } from './api';
import { CalendarCheck2, CalendarClock, CalendarX2, Clock, Download, Hourglass, MailQuestion, MapPin, Undo2 } from './icons';
import { LazyCancelForm } from './lazy-cancel-form';
import { LazyMoveForm } from './lazy-move-form';
import { domainCode, formatRange, useTimeZone, zoneName } from './time';
import { TimeZonePicker } from './time-zone-picker';

/** How often a pending request's page asks again (the status token allows 120 calls a minute). */
export const STATUS_REFRESH_MS = 5_000;

type Status = PublicProposalPage['status'];
const WORDS: Record<Status, { badge: string; tone: BadgeTone; icon: ReactNode; headline: (owner: string) => string; text: (owner: string) => string }> = {
  pending_requester_verification: {
    badge: 'Confirm your email',
    tone: 'warn',
    icon: <MailQuestion aria-hidden />,
    headline: () => 'Waiting for you to confirm your email',
    text: (o) => `We sent you an email with a confirmation link. Open it to confirm your address; your request then goes to ${o}.`,
  },
  pending_review: {
    badge: 'Waiting for review',
    tone: 'accent',
    icon: <Hourglass aria-hidden />,
    headline: (o) => `Waiting for ${o} to review your request`,
    text: () => 'Your email is confirmed. You will get an email with the answer, and this page updates by itself.',
  },
  booked: {
    badge: 'Booked',
    tone: 'ok',
    icon: <CalendarCheck2 aria-hidden />,
    headline: () => 'Your meeting is booked',
    text: (o) => `${o} accepted your request.`,
  },
  declined: {
    badge: 'Declined',
    tone: 'danger',
    icon: <CalendarX2 aria-hidden />,
    headline: () => 'Your request was declined',
    text: (o) => `${o} declined this request.`,
  },
  withdrawn: {
    badge: 'Withdrawn',
    tone: 'neutral',
    icon: <Undo2 aria-hidden />,
    headline: () => 'You withdrew this request',
    text: () => 'Nothing more will happen with it.',
  },
  cancelled: {
    badge: 'Cancelled',
    tone: 'neutral',
    icon: <CalendarX2 aria-hidden />,
    headline: () => 'This meeting was cancelled',
    text: (o) => `${o} was told, and the time is free again.`,
  },
  expired: {
    badge: 'Expired',
    tone: 'neutral',
    icon: <Clock aria-hidden />,
    headline: () => 'This request expired',
    text: () => 'The email address was not confirmed within 24 hours. Send a new request if you still want to meet.',
  },
};

const PENDING: Status[] = ['pending_requester_verification', 'pending_review'];

/**
 * The status page's body: asks again every few seconds while pending (only
 * while the page is visible, and at once when it becomes visible again), with
 * a withdraw button while allowed. Through the requester API (./api.ts).
 */
export function StatusView({ token, initial }: { token: string; initial: PublicProposalPage }) {
  const [tz, setTz] = useTimeZone();
  const [view, setView] = useState(initial);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A booked meeting the owner cancelled (or that gave way) reads as cancelled too.
  const shown: Status = view.meeting_cancelled ? 'cancelled' : view.status;
  const w = WORDS[shown];
  const owner = view.owner_name ?? 'The calendar owner';
  const ownerLower = view.owner_name ?? 'the calendar owner';
  // A request to move waiting for the owner counts as pending too: the page refreshes until it is decided.
  const movePending = view.move_request?.status === 'pending_review';
  const pending = PENDING.includes(view.status) || movePending;

  const refresh = useCallback(async () => {
    const { requester } = await requesterApi();
    setView(await requester.status.query({ token }));
  }, [token]);

  useEffect(() => {
    if (!pending) return;
    const again = () => {
      if (document.visibilityState === 'visible') refresh().catch(() => undefined); // the next round tries again
    };
    const timer = setInterval(again, STATUS_REFRESH_MS);
    document.addEventListener('visibilitychange', again);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', again);
    };
  }, [pending, refresh]);

  const onWithdraw = async () => {
    setFailure(null);
    setBusy(true);
    try {
      const { requester } = await requesterApi();
      setView(await requester.withdraw.mutate({ token }));
    } catch (err) {
      const code = domainCode(err);
      if (code === 'not_pending') await refresh().catch(() => undefined);
      else setFailure(code === 'rate_limited' ? 'Too many attempts. Please try again in a minute.' : 'The request could not be withdrawn. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="flex flex-col gap-5" data-status={view.status} data-shown={shown}>
      <Card>
        <CardContent className="flex flex-col gap-3 pt-5 sm:pt-5">
          <div aria-live="polite" className="flex flex-col gap-3">
            <Badge tone={w.tone} className="self-start">
              {w.icon}
              {w.badge}
            </Badge>
            <h2 className="text-lg font-semibold">{w.headline(ownerLower)}</h2>
            <p>{view.meeting_cancelled && view.status === 'booked' ? 'The meeting is off; the calendar owner cancelled it.' : w.text(view.status === 'booked' || view.status === 'declined' ? owner : ownerLower)}</p>
            {view.decline_reason && (
              <blockquote className="border-l-2 border-line pl-3 text-sm text-muted">
                <span className="sr-only">Their reason: </span>
                {view.decline_reason}
              </blockquote>
            )}
          </div>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {view.title && (
              <>
                <dt className="text-muted">Meeting</dt>
                <dd>{view.title}</dd>
              </>
            )}
            {view.owner_name && (
              <>
                <dt className="text-muted">With</dt>
                <dd>{view.owner_name}</dd>
              </>
            )}
            <dt className="text-muted">{view.status === 'booked' || view.status === 'cancelled' ? 'When' : 'Requested time'}</dt>
            <dd>
              {!view.start || !view.end ? 'Not given (a request in your own words)' : tz ? `${formatRange(view.start, view.end, tz)} (${zoneName(tz, new Date(view.start))})` : '…'}
            </dd>
            {view.location && (
              <>
                <dt className="text-muted">Where</dt>
                <dd className="flex items-start gap-1.5 break-words">
                  <MapPin className="mt-0.5 size-4 shrink-0" aria-hidden />
                  {/^https?:\/\//i.test(view.location) ? (
                    <a href={view.location} target="_blank" rel="noopener noreferrer" className="break-all">
                      {view.location}
                    </a>
                  ) : (
                    <span>{view.location}</span>
                  )}
                </dd>
              </>
            )}
          </dl>
          {view.move_request && tz && <MoveRequestNote request={view.move_request} owner={ownerLower} tz={tz} />}
          {pending && (
            <p className="flex items-center gap-1.5 text-xs text-muted">
              <Clock className="size-3.5" aria-hidden />
              This page checks for news every few seconds.
            </p>
          )}
        </CardContent>
      </Card>

      {view.start && tz && <TimeZonePicker value={tz} onChange={setTz} />}
      {failure && <Alert tone="danger">{failure}</Alert>}

      {view.withdrawable && <WithdrawControl owner={owner} busy={busy} onWithdraw={onWithdraw} />}
      {view.cancellable && <MeetingActions token={token} owner={owner} tz={tz} movable={view.movable} onChanged={setView} />}
    </div>
  );
}

/**
 * A booked meeting's actions: "Add to calendar" (the .ics file of
 * /public/booking-proposals/{token}/calendar.ics) and "Cancel this meeting",
 * which opens the reason form inline (loaded on that click).
 */
function MeetingActions({ token, owner, tz, movable, onChanged }: { token: string; owner: string; tz: string | null; movable: boolean; onChanged: (v: PublicProposalPage) => void }) {
  const [asking, setAsking] = useState(false);
  const [moving, setMoving] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const moveOpener = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  const wasMoving = useRef(false);
  useEffect(() => {
    if (!asking && wasAsking.current) opener.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  useEffect(() => {
    if (!moving && wasMoving.current) moveOpener.current?.focus();
    wasMoving.current = moving;
  }, [moving]);
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap gap-2">
        <a href={`/public/booking-proposals/${encodeURIComponent(token)}/calendar.ics`} download="meeting.ics" className={buttonClasses('primary')}>
          <Download aria-hidden />
          Add to calendar
        </a>
        {movable && !moving && !asking && (
          <button
            ref={moveOpener}
            type="button"
            className={buttonClasses('secondary')}
            onPointerEnter={preloadApi}
            onClick={() => {
              preloadApi();
              setMoving(true);
            }}
          >
            <CalendarClock aria-hidden />
            Ask to move
          </button>
        )}
        {!asking && !moving && (
          <button
            ref={opener}
            type="button"
            className={buttonClasses('secondary')}
            onPointerEnter={preloadApi}
            onClick={() => {
              preloadApi();
              setAsking(true);
            }}
          >
            <CalendarX2 aria-hidden />
            Cancel this meeting
          </button>
        )}
      </div>
      {asking && <LazyCancelForm token={token} owner={owner} onDone={onChanged} onKeep={() => setAsking(false)} />}
      {moving && tz && (
        <LazyMoveForm
          token={token}
          owner={owner}
          tz={tz}
          onDone={(v) => {
            setMoving(false);
            onChanged(v);
          }}
          onKeep={() => setMoving(false)}
        />
      )}
    </div>
  );
}

/**
 * Where the latest request to move stands (docs/public-scheduling.md "Asking to move"):
 * waiting for the owner, declined (with the reason), or done.
 */
function MoveRequestNote({ request, owner, tz }: { request: NonNullable<PublicProposalPage['move_request']>; owner: string; tz: string }) {
  const when = `${formatRange(request.start, request.end, tz)} (${zoneName(tz, new Date(request.start))})`;
  if (request.status === 'pending_review') {
    return (
      <p className="flex items-start gap-1.5 rounded-md bg-accent-soft px-3 py-2 text-sm" data-testid="move-request" data-move-status={request.status}>
        <Hourglass className="mt-0.5 size-4 shrink-0" aria-hidden />
        <span>
          You asked to move this meeting to {when}. Waiting for {owner} to answer; until then it stays at the time above.
        </span>
      </p>
    );
  }
  if (request.status === 'declined') {
    return (
      <div className="flex flex-col gap-1 rounded-md bg-surface-2 px-3 py-2 text-sm" data-testid="move-request" data-move-status={request.status}>
        <p>Your request to move this meeting to {when} was declined; it stays at the time above.</p>
        {request.decline_reason && (
          <blockquote className="border-l-2 border-line pl-3 text-muted">
            <span className="sr-only">Their reason: </span>
            {request.decline_reason}
          </blockquote>
        )}
      </div>
    );
  }
  if (request.status === 'booked') {
    return (
      <p className="text-sm text-muted" data-testid="move-request" data-move-status={request.status}>
        Moved at your request.
      </p>
    );
  }
  return null;
}

/**
 * Withdraw, asked twice: the button opens an inline question (a small
 * region that takes the focus, Escape or "Keep it" closes it). No modal
 * dialog library on this page (docs/benchmarks.md "Browser pages": the JavaScript budget).
 */
function WithdrawControl({ owner, busy, onWithdraw }: { owner: string; busy: boolean; onWithdraw: () => void }) {
  const [asking, setAsking] = useState(false);
  const question = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) {
      question.current?.focus();
      preloadApi();
    }
    else if (wasAsking.current) opener.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking) {
    return (
      <button ref={opener} type="button" className={buttonClasses('secondary', 'md', 'self-start')} onClick={() => setAsking(true)}>
        <Undo2 aria-hidden />
        Withdraw request
      </button>
    );
  }
  return (
    <div
      ref={question}
      role="group"
      aria-labelledby="withdraw-q"
      aria-describedby="withdraw-d"
      tabIndex={-1}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setAsking(false);
      }}
      className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4 outline-none focus-visible:outline-2"
    >
      <p id="withdraw-q" className="font-semibold">
        Withdraw this request?
      </p>
      <p id="withdraw-d" className="text-sm text-muted">
        {owner} will no longer see it. This cannot be undone.
      </p>
      <div className="flex flex-wrap gap-2">
        <button type="button" className={buttonClasses('danger')} disabled={busy} onClick={onWithdraw}>
          Yes, withdraw
        </button>
        <button type="button" className={buttonClasses('secondary')} onClick={() => setAsking(false)}>
          Keep it
        </button>
      </div>
    </div>
  );
}
