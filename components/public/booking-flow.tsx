'use client';

import { useQuery } from '@tanstack/react-query';
import { CalendarX2, ChevronLeft, ChevronRight } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '@/app/providers';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { RadioCard, RadioGroup } from '@/components/ui/radio-group';
import { minutesLabel } from './durations';
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
  attendeeLimit: number;
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
  const trpc = useTRPC();
  const [tz, setTz] = useTimeZone();
  const [duration, setDuration] = useState(durations[0]);
  const [slot, setSlot] = useState<Slot | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [done, setDone] = useState<SubmittedInfo | null>(null);
  // Pages of suggestions: each starts where the previous one ended (the API answers at most 50 times).
  const [pages, setPages] = useState<string[]>([]);
  const from = pages.at(-1);
  const times = useQuery({
    ...trpc.requester.suggestedTimes.queryOptions({ link, slug, duration_minutes: duration, ...(from ? { from } : {}) }),
    enabled: tz !== null,
    staleTime: 30_000,
    ...(initialTimes && duration === durations[0] && !from ? { initialData: { suggested_times: initialTimes, credential_rejected: false } } : {}),
  });
  const slotsShown = times.data?.suggested_times ?? [];
  const detailsHeading = useRef<HTMLHeadingElement>(null);

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
            <RadioGroup
              aria-label="How long"
              value={String(duration)}
              onValueChange={(v) => {
                setDuration(Number(v));
                setSlot(null);
                setPages([]);
              }}
              className="grid grid-cols-2 gap-2 sm:grid-cols-3"
            >
              {durations.map((d) => (
                <RadioCard key={d} value={String(d)}>
                  {minutesLabel(d)}
                </RadioCard>
              ))}
            </RadioGroup>
          )}
          {tz && <TimeZonePicker value={tz} onChange={setTz} />}
          {notice && <Alert tone="warn">{notice}</Alert>}
          <TimeList
            tz={tz}
            loading={tz === null || times.isPending}
            failed={times.isError}
            slots={slotsShown}
            selected={slot}
            onSelect={(s) => {
              setSlot(s);
              setNotice(null);
            }}
            link={link}
          />
          {!times.isPending && (pages.length > 0 || slotsShown.length >= MAX_SHOWN) && (
            <div className="flex flex-wrap gap-2">
              {pages.length > 0 && (
                <Button variant="secondary" onClick={() => setPages((p) => p.slice(0, -1))}>
                  <ChevronLeft aria-hidden />
                  Earlier times
                </Button>
              )}
              {slotsShown.length >= MAX_SHOWN && (
                <Button variant="secondary" onClick={() => setPages((p) => [...p, slotsShown.at(-1)!.end])}>
                  Later times
                  <ChevronRight aria-hidden />
                </Button>
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
            <Button variant="ghost" size="sm" onClick={() => setSlot(null)}>
              Change time
            </Button>
          </div>
          <LazyRequestForm
            link={link}
            attendeeLimit={attendeeLimit}
            structured={{ slug, duration, slot }}
            onDone={setDone}
            onTimeTaken={() => {
              setSlot(null);
              setNotice('Sorry, that time was just taken. Please pick another one.');
              void times.refetch();
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
                  <Button
                    variant={on ? 'primary' : 'secondary'}
                    className="w-full"
                    aria-pressed={on}
                    aria-label={`${day}, ${formatTime(s.start, tz)}`}
                    data-start={s.start}
                    onClick={() => props.onSelect(s)}
                  >
                    {formatTime(s.start, tz)}
                  </Button>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </div>
  );
}
