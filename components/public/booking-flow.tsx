'use client';

import { useEffect, useId, useRef, useState } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { minutesLabel } from './durations';
import { CalendarX2, ChevronLeft, ChevronRight } from '@/components/ui/icons';
import { LazyRequestForm, preloadRequestForm } from './lazy-request-form';
import { Submitted, type SubmittedInfo } from './submitted';
import { formatDateLongDay, formatMonthYear, formatViewerSlot, zoneName } from '@/components/ui/time-format';
import { useTimeZone } from '@/components/public/time-zone';
import { TimeList, type Slot } from './time-grid';
import { TimeZonePicker } from './time-zone-picker';
import { MonthView } from './month-view';
import { useFreeDays, useSuggestedTimes, type FreeDay } from './times-data';
import { WaitlistJoin } from './waitlist-join';

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
  /** "Repeat weekly for N weeks" is offered, up to this many (docs/public-scheduling.md "Repeating weekly"); null: not offered. */
  repeatMaxWeeks: number | null;
  /** Suggestions for the first length, rendered with the page: the first day's times when they hold all of it (saves a round trip). */
  initialTimes?: Slot[];
};

/**
 * A meeting type's page after its heading: length, time zone, the month view
 * (the days with free times in the requester's zone) and the picked day's
 * times, then the request form for the chosen time, then the next step.
 */
export function BookingFlow({ link, slug, title, durations, attendeeLimit, ownerName, booksInstantly, repeatMaxWeeks, initialTimes }: Props) {
  const [tz, setTz] = useTimeZone();
  const [duration, setDuration] = useState(durations[0]);
  const [slot, setSlot] = useState<Slot | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [done, setDone] = useState<SubmittedInfo | null>(null);
  // The month shown (null: the one the server picks, with the first free time) and the day picked in it.
  const [month, setMonth] = useState<string | null>(null);
  const [day, setDay] = useState<string | null>(null);
  const days = useFreeDays(tz ? { link, slug, duration, tz, ...(month ? { month } : {}) } : null);
  // The last answer stays (its day and times shown) while another month loads.
  const [view, setView] = useState(days.value);
  if (days.value && days.value !== view) setView(days.value);
  const shownMonth = month ?? view?.month ?? null;
  const counts = days.value ? new Map(days.value.days.map((d) => [d.date, d.count])) : null;
  // The day picked, else the month's first day with times (docs/public-scheduling.md "Month view").
  const dayInfo = view?.days.find((d) => d.date === day) ?? view?.days[0] ?? null;
  // The times rendered with the page stand for the first day until one was taken.
  const [fresh, setFresh] = useState(true);
  // Pages of a day's times: each starts where the previous one ended (the API answers at most 50 times).
  const [pages, setPages] = useState<string[]>([]);
  const seeded = seededTimes(fresh ? initialTimes : undefined, duration === durations[0] && pages.length === 0 ? dayInfo : null);
  const times = useSuggestedTimes(dayInfo && !seeded ? { link, slug, duration, from: pages.at(-1) ?? dayInfo.from, to: dayInfo.to } : null);
  const slotsShown = seeded ?? times.slots;
  const timesLoading = !seeded && times.loading;
  const detailsHeading = useRef<HTMLHeadingElement>(null);
  const pickHeading = useRef<HTMLHeadingElement>(null);
  const timesHeading = useRef<HTMLHeadingElement>(null);
  const [picks, setPicks] = useState(0);
  const hadSlot = useRef(false);
  const lengthName = useId();
  const t = useTranslations('flow');
  const tm = useTranslations('month');
  const lengths = useTranslations('duration');
  const locale = useFormatLocale();
  const dayName = dayInfo ? formatDateLongDay(dayInfo.date, locale) : '';

  // Focus follows each step (docs/public-scheduling.md "Keyboard and screen readers"): to the
  // details once a time is picked, back to "Pick a time" when the time is changed or was taken.
  useEffect(() => {
    if (slot) detailsHeading.current?.focus();
    else if (hadSlot.current) pickHeading.current?.focus();
    hadSlot.current = slot !== null;
  }, [slot]);
  // A day picked in the month view: focus moves to its times' heading (the live region says how many).
  useEffect(() => {
    if (picks > 0) timesHeading.current?.focus();
  }, [picks]);
  // Said by the live region when the times change (a day, a length, a zone, a page of times).
  const announcement =
    tz && !slot && view && !timesLoading && !times.failed
      ? dayInfo
        ? tm('announce', { count: slotsShown.length, day: dayName })
        : t('announceNone')
      : '';
  const changeLength = (d: number) => {
    setDuration(d);
    setSlot(null);
    setPages([]);
  };

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
                    onChange={() => changeLength(d)}
                    className="size-4 shrink-0 accent-accent focus-visible:outline-none"
                  />
                  <span className="flex-1">{minutesLabel(lengths, d)}</span>
                </label>
              ))}
            </div>
          )}
          {tz && <TimeZonePicker value={tz} onChange={setTz} />}
          {notice && <Alert tone="warn">{notice}</Alert>}
          {days.failed ? (
            <TimeList tz={tz} loading={false} failed slots={[]} selected={null} onSelect={() => undefined} link={link} />
          ) : !tz || !shownMonth || !view ? (
            <TimeList tz={tz} loading failed={false} slots={[]} selected={null} onSelect={() => undefined} link={link} />
          ) : (
            <>
              <MonthView
                month={shownMonth}
                firstMonth={view.first_month}
                lastMonth={view.last_month}
                counts={counts}
                selected={dayInfo?.date ?? null}
                onMonth={(m) => {
                  setMonth(m);
                  setPages([]);
                }}
                onPick={(d) => {
                  setDay(d);
                  setPages([]);
                  setPicks((n) => n + 1);
                }}
              />
              {days.value && !dayInfo && (
                <Alert>
                  <CalendarX2 aria-hidden />
                  {tm.rich('none', { month: formatMonthYear(shownMonth, locale), link: (c) => <a href={`/${link}#request`}>{c}</a> })}
                </Alert>
              )}
              {dayInfo && (
                <div className="flex flex-col gap-3">
                  <h3 ref={timesHeading} tabIndex={-1} className="text-base font-semibold outline-none">
                    {tm('times', { day: dayName })}
                  </h3>
                  <TimeList
                    tz={tz}
                    loading={timesLoading}
                    failed={!seeded && times.failed}
                    slots={slotsShown}
                    selected={slot}
                    onSelect={(s) => {
                      setSlot(s);
                      setNotice(null);
                    }}
                    link={link}
                    dayHeadings={false}
                  />
                </div>
              )}
            </>
          )}
          {!timesLoading && (pages.length > 0 || slotsShown.length >= MAX_SHOWN) && (
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
          {/* The time wanted is taken, or the day is full: wait for it (docs/public-scheduling.md "Waitlist"). Keyed by day and length: a new pick starts afresh. */}
          {tz && view && <WaitlistJoin key={`${dayInfo?.date ?? ''}-${duration}`} link={link} slug={slug} duration={duration} tz={tz} day={dayInfo?.date ?? null} />}
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
            repeatMaxWeeks={repeatMaxWeeks}
            tz={tz}
            onPickAnother={() => {
              setSlot(null);
              setFresh(false);
              times.refetch();
              days.refetch();
            }}
            onTimeTaken={() => {
              setSlot(null);
              setNotice(t('taken'));
              setFresh(false);
              times.refetch();
              days.refetch();
            }}
          />
        </section>
      )}
    </div>
  );
}

/**
 * The page's first suggestions (rendered with it) as the times of the month view's first day, when
 * they hold all of that day's times; else null and the day's times are asked for.
 */
function seededTimes(initial: Slot[] | undefined, day: FreeDay | null): Slot[] | null {
  if (!initial || !day) return null;
  const of = initial.filter((s) => s.start >= day.from && s.start < day.to);
  return of.length === day.count ? of : null;
}
