'use client';

import { useEffect, useId, useRef, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { requesterApi } from './api';
import { minutesLabel } from './durations';
import { CalendarX2, ChevronLeft, ChevronRight } from './icons';
import { LazyRequestForm, preloadRequestForm } from './lazy-request-form';
import { Submitted, type SubmittedInfo } from './submitted';
import { formatDay, formatRange, formatTime, useTimeZone, zoneName } from './time';
import { TimeZonePicker } from './time-zone-picker';

export type Slot = { start: string; end: string };
/** The API's page size of suggestions (server/domain/publicScheduling/requester MAX_SUGGESTED_TIMES). */
const MAX_SHOWN = 50;
type Props = {
  link: string;
  slug: string;
  title: string;
  durations: number[];
  attendeeLimit: number | null;
  ownerName: string | null;
  /** Suggestions for the first length, rendered with the page (saves a round trip before the times show). */
  initialTimes?: Slot[];
};

/**
 * A meeting type's page after its heading: length, time zone, the suggested
 * times grouped by day in the requester's zone, then the request form for
 * the chosen time, then the next step.
 */
export function BookingFlow({ link, slug, title, durations, attendeeLimit, ownerName, initialTimes }: Props) {
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
  const lengthName = useId();

  useEffect(() => {
    if (slot) detailsHeading.current?.focus();
  }, [slot]);

  if (done) return <Submitted info={done} ownerName={ownerName} />;

  return (
    <div className="flex flex-col gap-8">
      {!slot && (
        <section aria-labelledby="pick-time" className="flex flex-col gap-5" onPointerDown={preloadRequestForm} onFocus={preloadRequestForm}>
          <h2 id="pick-time" className="text-lg font-semibold">
            Pick a time
          </h2>
          {durations.length > 1 && (
            // Native radio buttons: arrow keys move between them, Tab leaves the group.
            <div role="radiogroup" aria-label="How long" className="grid grid-cols-2 gap-2 sm:grid-cols-3">
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
                  <span className="flex-1">{minutesLabel(d)}</span>
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
                  <ChevronLeft aria-hidden />
                  Earlier times
                </button>
              )}
              {slotsShown.length >= MAX_SHOWN && (
                <button type="button" className={buttonClasses('secondary')} onClick={() => setPages((p) => [...p, slotsShown.at(-1)!.end])}>
                  Later times
                  <ChevronRight aria-hidden />
                </button>
              )}
            </div>
          )}
        </section>
      )}

      {slot && tz && (
        <section aria-labelledby="your-details" className="flex flex-col gap-4">
          <h2 id="your-details" ref={detailsHeading} tabIndex={-1} className="text-lg font-semibold outline-none">
            Your details
          </h2>
          <div className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-line bg-surface-2 px-3 py-2 text-sm">
            <p>
              <span className="font-medium">{title}</span>, {formatRange(slot.start, slot.end, tz)}{' '}
              <span className="text-muted">({zoneName(tz, new Date(slot.start))})</span>
            </p>
            <button type="button" className={buttonClasses('ghost', 'sm')} onClick={() => setSlot(null)}>
              Change time
            </button>
          </div>
          <LazyRequestForm
            link={link}
            attendeeLimit={attendeeLimit}
            structured={{ slug, duration, slot }}
            onDone={setDone}
            onTimeTaken={() => {
              setSlot(null);
              setNotice('Sorry, that time was just taken. Please pick another one.');
              times.refetch();
            }}
          />
        </section>
      )}
    </div>
  );
}

function TimeList(props: {
  tz: string | null;
  loading: boolean;
  failed: boolean;
  slots: Slot[];
  selected: Slot | null;
  onSelect: (s: Slot) => void;
  link: string;
}) {
  const { tz, slots, selected } = props;
  if (props.failed) return <Alert tone="danger">The free times could not be loaded. Please reload the page.</Alert>;
  if (props.loading || !tz) {
    return (
      <p className="text-sm text-muted" aria-busy="true">
        Loading free times…
      </p>
    );
  }
  if (!slots.length) {
    return (
      <Alert>
        <CalendarX2 aria-hidden />
        No free times in the next two weeks from here. You can <a href={`/${props.link}#request`}>send a request in your own words</a> instead.
      </Alert>
    );
  }
  const days: { day: string; slots: Slot[] }[] = [];
  for (const s of slots) {
    const day = formatDay(s.start, tz);
    if (days.at(-1)?.day !== day) days.push({ day, slots: [] });
    days.at(-1)!.slots.push(s);
  }
  return (
    <div className="flex flex-col gap-4">
      {days.map(({ day, slots: daySlots }) => (
        <div key={day} role="group" aria-label={day}>
          <h3 className="mb-2 text-sm font-semibold">{day}</h3>
          <ul className="grid grid-cols-3 gap-2 sm:grid-cols-4">
            {daySlots.map((s) => {
              const on = selected?.start === s.start && selected.end === s.end;
              return (
                <li key={s.start}>
                  <button
                    type="button"
                    className={buttonClasses(on ? 'primary' : 'secondary', 'md', 'w-full')}
                    aria-pressed={on}
                    aria-label={`${day}, ${formatTime(s.start, tz)}`}
                    data-start={s.start}
                    onClick={() => props.onSelect(s)}
                  >
                    {formatTime(s.start, tz)}
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
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
