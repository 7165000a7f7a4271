'use client';

import { useEffect, useId, useRef, useState } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { requesterApi } from './api';
import { minutesLabel } from './durations';
import { ChevronLeft, ChevronRight } from '@/components/ui/icons';
import { LazyRequestForm, preloadRequestForm } from './lazy-request-form';
import { Submitted, type SubmittedInfo } from './submitted';
import { formatLongDay, formatViewerSlot, zoneName } from '@/components/ui/time-format';
import { useTimeZone } from '@/components/public/time-zone';
import { TimeList, type Slot } from './time-grid';
import { TimeZonePicker } from './time-zone-picker';

/** The API's page size of suggestions (server/domain/publicScheduling/requester MAX_SUGGESTED_TIMES). */
const MAX_SHOWN = 50;
type Props = {
  link: string;
  slug: string;
  title: string;
  durations: number[];
  attendeeLimit: number | null;
  ownerName: string | null;
  /** The type books at once when the time is still free (docs/public-scheduling.md "Booking instantly"): the next step says so. */
  booksInstantly: boolean;
  /** Suggestions for the first length, rendered with the page (saves a round trip before the times show). */
  initialTimes?: Slot[];
};

/**
 * A meeting type's page after its heading: length, time zone, the suggested
 * times grouped by day in the requester's zone, then the request form for
 * the chosen time, then the next step.
 */
export function BookingFlow({ link, slug, title, durations, attendeeLimit, ownerName, booksInstantly, initialTimes }: Props) {
  const [tz, setTz] = useTimeZone();
  const [duration, setDuration] = useState(durations[0]);
  const [slot, setSlot] = useState<Slot | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [done, setDone] = useState<SubmittedInfo | null>(null);
  // Pages of suggestions: each starts where the previous one ended (the API answers at most 50 times).
  const [pages, setPages] = useState<string[]>([]);
  const from = pages.at(-1);
  const times = useSuggestedTimes({ link, slug, duration, from, enabled: tz !== null, initial: initialTimes && { duration: durations[0], slots: initialTimes } });
  const slotsShown = times.slots;
  const detailsHeading = useRef<HTMLHeadingElement>(null);
  const pickHeading = useRef<HTMLHeadingElement>(null);
  const hadSlot = useRef(false);
  const lengthName = useId();
  const t = useTranslations('flow');
  const lengths = useTranslations('duration');
  const locale = useFormatLocale();

  // Focus follows each step (docs/public-scheduling.md "Keyboard and screen readers"): to the
  // details once a time is picked, back to "Pick a time" when the time is changed or was taken.
  useEffect(() => {
    if (slot) detailsHeading.current?.focus();
    else if (hadSlot.current) pickHeading.current?.focus();
    hadSlot.current = slot !== null;
  }, [slot]);
  // Said by the live region when the list changes (a length, a zone, a page of times).
  const announcement =
    tz && !slot && !times.loading && !times.failed
      ? slotsShown.length
        ? t('announce', { count: slotsShown.length, day: formatLongDay(slotsShown[0].start, tz, locale) })
        : t('announceNone')
      : '';

  if (done) return <Submitted info={done} ownerName={ownerName} booksInstantly={booksInstantly} />;

  return (
    <div className="flex flex-col gap-8">
      {!slot && (
        <section aria-labelledby="pick-time" className="flex flex-col gap-5" onPointerDown={preloadRequestForm} onFocus={preloadRequestForm}>
          <h2 id="pick-time" ref={pickHeading} tabIndex={-1} className="text-lg font-semibold outline-none">
            {t('pick')}
          </h2>
          <p className="sr-only" role="status" aria-live="polite">
            {announcement}
          </p>
          {durations.length > 1 && (
            // Native radio buttons: arrow keys move between them, Tab leaves the group.
            <div role="radiogroup" aria-label={t('length')} className="grid grid-cols-2 gap-2 sm:grid-cols-3">
              {durations.map((d) => (
                <label
                  key={d}
                  className="flex w-full cursor-pointer items-center gap-3 rounded-md border border-line bg-surface px-3 py-2 text-sm hover:bg-surface-2 has-checked:border-accent has-checked:bg-accent-soft has-focus-visible:outline-2 has-focus-visible:outline-accent"
                >
                  <input
                    type="radio"
                    name={lengthName}
                    value={d}
                    checked={duration === d}
                    onChange={() => {
                      setDuration(d);
                      setSlot(null);
                      setPages([]);
                    }}
                    className="size-4 shrink-0 accent-accent focus-visible:outline-none"
                  />
                  <span className="flex-1">{minutesLabel(lengths, d)}</span>
                </label>
              ))}
            </div>
          )}
          {tz && <TimeZonePicker value={tz} onChange={setTz} />}
          {notice && <Alert tone="warn">{notice}</Alert>}
          <TimeList
            tz={tz}
            loading={tz === null || times.loading}
            failed={times.failed}
            slots={slotsShown}
            selected={slot}
            onSelect={(s) => {
              setSlot(s);
              setNotice(null);
            }}
            link={link}
          />
          {!times.loading && (pages.length > 0 || slotsShown.length >= MAX_SHOWN) && (
            <div className="flex flex-wrap gap-2">
              {pages.length > 0 && (
                <button type="button" className={buttonClasses('secondary')} onClick={() => setPages((p) => p.slice(0, -1))}>
                  <ChevronLeft className="rtl:-scale-x-100" aria-hidden />
                  {t('earlier')}
                </button>
              )}
              {slotsShown.length >= MAX_SHOWN && (
                <button type="button" className={buttonClasses('secondary')} onClick={() => setPages((p) => [...p, slotsShown.at(-1)!.end])}>
                  {t('later')}
                  <ChevronRight className="rtl:-scale-x-100" aria-hidden />
                </button>
              )}
            </div>
          )}
        </section>
      )}

      {slot && tz && (
        <section aria-labelledby="your-details" className="flex flex-col gap-4">
          <h2 id="your-details" ref={detailsHeading} tabIndex={-1} className="text-lg font-semibold outline-none">
            {t('details')}
          </h2>
          <div className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-line bg-surface-2 px-3 py-2 text-sm">
            <p>
              {t.rich('chosen', {
                title,
                when: formatViewerSlot(slot.start, slot.end, tz, locale),
                zone: zoneName(tz, new Date(slot.start), locale),
                strong: (c) => <span className="font-medium">{c}</span>,
                muted: (c) => <span className="text-muted">{c}</span>,
              })}
            </p>
            <button type="button" className={buttonClasses('ghost', 'sm')} onClick={() => setSlot(null)}>
              {t('change')}
            </button>
          </div>
          <LazyRequestForm
            link={link}
            attendeeLimit={attendeeLimit}
            structured={{ slug, duration, slot }}
            onDone={setDone}
            onTimeTaken={() => {
              setSlot(null);
              setNotice(t('taken'));
              times.refetch();
            }}
          />
        </section>
      )}
    </div>
  );
}

/** How long a page of suggestions is shown again without asking (the server's answer moves as times are taken). */
const FRESH_MS = 30_000;
type Loaded = { slots: Slot[]; at: number };

/**
 * The suggested times for a length and page, through the requester API
 * (./api.ts). The first page of the first length comes with the HTML; a page
 * fetched in the last 30 s is shown again without a request; `refetch` asks
 * again (the times shown stay until the answer arrives).
 */
function useSuggestedTimes(q: { link: string; slug: string; duration: number; from?: string; enabled: boolean; initial?: { duration: number; slots: Slot[] } }) {
  const { link, slug, duration, from, enabled } = q;
  const [cache] = useState(() => new Map<string, Loaded>(q.initial ? [[`${q.initial.duration}|`, { slots: q.initial.slots, at: Date.now() }]] : []));
  const [, setLoads] = useState(0); // a new answer in the cache re-renders
  const [failedKey, setFailedKey] = useState<string | null>(null);
  const [round, setRound] = useState(0); // bumped by refetch()
  const key = `${duration}|${from ?? ''}`;

  useEffect(() => {
    if (!enabled) return;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < FRESH_MS) return;
    let live = true;
    requesterApi()
      .then(({ requester }) => requester.suggestedTimes.query({ link, slug, duration_minutes: duration, ...(from ? { from } : {}) }))
      .then(
        (r) => {
          cache.set(key, { slots: r.suggested_times, at: Date.now() });
          if (live) setLoads((n) => n + 1);
        },
        () => {
          if (live) setFailedKey(key);
        },
      );
    return () => {
      live = false;
    };
  }, [cache, enabled, key, round, link, slug, duration, from]);

  const hit = cache.get(key);
  const failed = !hit && failedKey === key;
  return {
    slots: hit?.slots ?? [],
    loading: !hit && !failed,
    failed,
    refetch: () => {
      const h = cache.get(key);
      if (h) h.at = 0;
      setRound((r) => r + 1);
    },
  };
}
