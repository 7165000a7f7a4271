'use client';

import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import type { PublicProposalPage } from '@/server/domain/publicScheduling/requester';
import { Alert } from '@/components/ui/alert';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { buttonClasses } from '@/components/ui/button-classes';
import { Card, CardContent } from '@/components/ui/card';
import { preloadApi, requesterApi } from './api';
import { CalendarCheck2, CalendarClock, CalendarX2, Clock, Download, Hourglass, MailQuestion, MapPin, Undo2 } from '@/components/ui/icons';
import { LazyCancelForm } from './lazy-cancel-form';
import { LazyMoveForm } from './lazy-move-form';
import { formatViewerSlot, zoneName } from '@/components/ui/time-format';
import { useTimeZone } from '@/components/public/time-zone';
import { readServerError } from '@/components/ui/server-error';
import { TimeZonePicker } from './time-zone-picker';
import { useEmbedStatusEvents } from './embed-events';

/** How often a pending request's page asks again (the status token allows 120 calls a minute). */
const STATUS_REFRESH_MS = 5_000;

type Status = PublicProposalPage['status'];
/** Each state's badge look; its words are the catalogue's `status.badge`, `status.headline` and `status.text` (ICU select on the state). */
const LOOK: Record<Status, { tone: BadgeTone; icon: ReactNode }> = {
  pending_requester_verification: { tone: 'warn', icon: <MailQuestion aria-hidden /> },
  pending_review: { tone: 'accent', icon: <Hourglass aria-hidden /> },
  booked: { tone: 'ok', icon: <CalendarCheck2 aria-hidden /> },
  declined: { tone: 'danger', icon: <CalendarX2 aria-hidden /> },
  withdrawn: { tone: 'neutral', icon: <Undo2 aria-hidden /> },
  cancelled: { tone: 'neutral', icon: <CalendarX2 aria-hidden /> },
  expired: { tone: 'neutral', icon: <Clock aria-hidden /> },
};

/** A type that books instantly speaks of a booking, not of an owner's answer (docs/public-scheduling.md "Booking instantly"): `status.instantText`. */
const INSTANT: Status[] = ['pending_requester_verification', 'booked'];

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
  const look = LOOK[shown];
  const t = useTranslations('status');
  const locale = useFormatLocale();
  const owner = view.owner_name;
  const who = { known: owner ? 'yes' : 'no', owner: owner ?? '' };
  useEmbedStatusEvents(token, shown);
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
      const code = readServerError(err).code;
      if (code === 'not_pending') await refresh().catch(() => undefined);
      else setFailure(code === 'rate_limited' ? t('rateLimited') : t('withdrawFailed'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="flex flex-col gap-5" data-status={view.status} data-shown={shown}>
      <Card>
        <CardContent className="flex flex-col gap-3 pt-5 sm:pt-5">
          <div aria-live="polite" className="flex flex-col gap-3">
            <Badge tone={look.tone} className="self-start">
              {look.icon}
              {t('badge', { status: shown })}
            </Badge>
            <h2 className="text-lg font-semibold">{t('headline', { status: shown, ...who })}</h2>
            <p>
              {view.meeting_cancelled && view.status === 'booked'
                ? t('cancelledByOwner')
                : view.books_instantly && INSTANT.includes(shown)
                  ? t('instantText', { status: shown })
                  : t('text', { status: shown, ...who })}
            </p>
            {view.decline_reason && (
              <blockquote className="border-s-2 border-line ps-3 text-sm text-muted">
                <span className="sr-only">{t('reason')} </span>
                {view.decline_reason}
              </blockquote>
            )}
          </div>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            {view.title && (
              <>
                <dt className="text-muted">{t('meeting')}</dt>
                <dd>{view.title}</dd>
              </>
            )}
            {view.owner_name && (
              <>
                <dt className="text-muted">{t('with')}</dt>
                <dd>{view.owner_name}</dd>
              </>
            )}
            <dt className="text-muted">{view.status === 'booked' || view.status === 'cancelled' ? t('when') : t('requested')}</dt>
            <dd>
              {!view.start || !view.end ? t('notGiven') : tz ? t('whenValue', { when: formatViewerSlot(view.start, view.end, tz, locale), zone: zoneName(tz, new Date(view.start), locale) }) : '…'}
            </dd>
            {view.location && (
              <>
                <dt className="text-muted">{t('where')}</dt>
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
            {view.video && view.video.status !== 'removed' && (
              <>
                <dt className="text-muted">{t('join')}</dt>
                <dd className="break-words" data-testid="video-link">
                  {view.video.join_url ? (
                    <a href={view.video.join_url} target="_blank" rel="noopener noreferrer" className="break-all">
                      {view.video.join_url}
                    </a>
                  ) : view.video.status === 'pending' ? (
                    t('videoPending')
                  ) : (
                    t('videoFailed')
                  )}
                </dd>
              </>
            )}
          </dl>
          {view.weeks && tz && (
            <section aria-labelledby="weeks-heading" className="flex flex-col gap-1 text-sm">
              <h3 id="weeks-heading" className="font-medium">
                {t('weeks', { count: view.weeks.length })}
              </h3>
              <ol className="list-decimal ps-6" data-testid="weeks">
                {view.weeks.map((w) => (
                  <li key={w.start} data-start={w.start} className={w.cancelled ? 'text-muted line-through' : undefined}>
                    {formatViewerSlot(w.start, w.end, tz, locale)}
                    {w.cancelled && ` (${t('weekCancelled')})`}
                  </li>
                ))}
              </ol>
            </section>
          )}
          {view.move_request && tz && <MoveRequestNote request={view.move_request} owner={owner} tz={tz} />}
          {pending && (
            <p className="flex items-center gap-1.5 text-xs text-muted">
              <Clock className="size-3.5" aria-hidden />
              {t('checking')}
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
function MeetingActions({ token, owner, tz, movable, onChanged }: { token: string; owner: string | null; tz: string | null; movable: boolean; onChanged: (v: PublicProposalPage) => void }) {
  const t = useTranslations('status');
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
          {t('addToCalendar')}
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
            {t('askMove')}
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
            {t('cancel')}
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
function MoveRequestNote({ request, owner, tz }: { request: NonNullable<PublicProposalPage['move_request']>; owner: string | null; tz: string }) {
  const t = useTranslations('status');
  const locale = useFormatLocale();
  const when = t('whenValue', { when: formatViewerSlot(request.start, request.end, tz, locale), zone: zoneName(tz, new Date(request.start), locale) });
  if (request.status === 'pending_review') {
    return (
      <p className="flex items-start gap-1.5 rounded-md bg-accent-soft px-3 py-2 text-sm" data-testid="move-request" data-move-status={request.status}>
        <Hourglass className="mt-0.5 size-4 shrink-0" aria-hidden />
        <span>
          {t('movePending', { when, known: owner ? 'yes' : 'no', owner: owner ?? '' })}
        </span>
      </p>
    );
  }
  if (request.status === 'declined') {
    return (
      <div className="flex flex-col gap-1 rounded-md bg-surface-2 px-3 py-2 text-sm" data-testid="move-request" data-move-status={request.status}>
        <p>{t('moveDeclined', { when })}</p>
        {request.decline_reason && (
          <blockquote className="border-s-2 border-line ps-3 text-muted">
            <span className="sr-only">{t('reason')} </span>
            {request.decline_reason}
          </blockquote>
        )}
      </div>
    );
  }
  if (request.status === 'booked') {
    return (
      <p className="text-sm text-muted" data-testid="move-request" data-move-status={request.status}>
        {t('moved')}
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
function WithdrawControl({ owner, busy, onWithdraw }: { owner: string | null; busy: boolean; onWithdraw: () => void }) {
  const t = useTranslations('status');
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
        {t('withdraw')}
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
        {t('withdrawQuestion')}
      </p>
      <p id="withdraw-d" className="text-sm text-muted">
        {t('withdrawText', { known: owner ? 'yes' : 'no', owner: owner ?? '' })}
      </p>
      <div className="flex flex-wrap gap-2">
        <button type="button" className={buttonClasses('danger')} disabled={busy} onClick={onWithdraw}>
          {t('withdrawYes')}
        </button>
        <button type="button" className={buttonClasses('secondary')} onClick={() => setAsking(false)}>
          {t('keep')}
        </button>
      </div>
    </div>
  );
}
