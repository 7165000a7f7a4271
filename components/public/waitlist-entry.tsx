'use client';

import { useState } from 'react';
import { useTranslations } from 'next-intl';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { formatViewerClock, formatViewerSlot, formatLongDay, zoneName } from '@/components/ui/time-format';
import type { PublicWaitlistPage } from '@/server/domain/waitlist/requesterEntries';
import { requesterApi } from './api';
import { useFormatLocale } from './format-locale';

/**
 * A requester's waitlist entry (docs/public-scheduling.md "Waitlist"), in the zone their booking
 * pages used: waiting (leave), offered (the held time: confirm or decline), confirmed (a link to
 * the request's status page), or ended. Buttons stay focusable while working (aria-disabled).
 */
export function WaitlistEntryView({ token, initial }: { token: string; initial: PublicWaitlistPage }) {
  const t = useTranslations('waitlist');
  const locale = useFormatLocale();
  const [view, setView] = useState(initial);
  const [busy, setBusy] = useState<'confirm' | 'leave' | null>(null);
  const [failure, setFailure] = useState(false);
  const tz = view.time_zone;
  const zone = `(${zoneName(tz, new Date(view.window_start), locale)})`;
  const window = `${formatViewerSlot(view.window_start, view.window_end, tz, locale)} ${zone}`;

  const act = async (which: 'confirm' | 'leave') => {
    if (busy) return;
    setBusy(which);
    setFailure(false);
    try {
      const { requester } = await requesterApi();
      setView(which === 'confirm' ? await requester.confirmWaitlistOffer.mutate({ token }) : await requester.leaveWaitlist.mutate({ token }));
    } catch {
      setFailure(true);
      try {
        const { requester } = await requesterApi();
        setView(await requester.waitlist.query({ token }));
      } catch {
        // the alert says what to do
      }
    } finally {
      setBusy(null);
    }
  };
  const rich = { strong: (c: React.ReactNode) => <strong>{c}</strong> };
  const owned = { owned: view.owner_name ? 'yes' : 'no', owner: view.owner_name ?? '' };

  return (
    <Card>
      <CardContent className="flex flex-col gap-4 pt-5 sm:pt-5" aria-live="polite">
        {view.status === 'offered' && view.offer ? (
          <>
            <p>
              {t.rich('offered', {
                ...rich,
                when: `${view.title}, ${formatViewerSlot(view.offer.start, view.offer.end, tz, locale)} ${zone}`,
                until: `${formatLongDay(view.offer.expires_at, tz, locale)}, ${formatViewerClock(view.offer.expires_at, tz, locale)}`,
              })}
            </p>
            <div className="flex flex-col gap-2 sm:flex-row">
              <Button aria-disabled={busy !== null} onClick={() => act('confirm')} className="aria-disabled:cursor-wait aria-disabled:opacity-50">
                {busy === 'confirm' ? t('confirming') : t('confirm')}
              </Button>
              <Button variant="secondary" aria-disabled={busy !== null} onClick={() => act('leave')} className="aria-disabled:cursor-wait aria-disabled:opacity-50">
                {busy === 'leave' ? t('leaving') : t('decline')}
              </Button>
            </div>
          </>
        ) : (
          <p>{t.rich('waitingFor', { ...rich, ...owned, title: view.title, window })}</p>
        )}
        {view.status === 'waiting' && (
          <>
            <p className="text-sm text-muted">{t('waitingNote')}</p>
            <Button variant="secondary" aria-disabled={busy !== null} onClick={() => act('leave')} className="self-start aria-disabled:cursor-wait aria-disabled:opacity-50">
              {busy === 'leave' ? t('leaving') : t('leave')}
            </Button>
          </>
        )}
        {view.status === 'confirmed' && (
          <Alert tone="ok">
            {t('confirmed')} {view.status_path && <a href={view.status_path}>{t('seeStatus')}</a>}
          </Alert>
        )}
        {view.status === 'cancelled' && <Alert>{initial.status === 'offered' ? t('declined') : t('left')}</Alert>}
        {view.status === 'lapsed' && <Alert>{t('lapsed')}</Alert>}
        {view.status === 'expired' && <Alert>{t('expired')}</Alert>}
        {failure && <Alert tone="danger">{t('actionFailed')}</Alert>}
      </CardContent>
    </Card>
  );
}
