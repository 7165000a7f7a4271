'use client';

import { useEffect, useRef, useState } from 'react';
import type { PublicProposalPage } from '@/server/domain/publicScheduling/requester';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { Field } from '@/components/ui/field';
import { Textarea } from '@/components/ui/input';
import { useZodForm } from '@/components/ui/form';
import { MoveRequestNote } from '@/server/schemas/public';
import { requesterApi } from './api';
import { ChevronRight } from './icons';
import { currentTimeZone, domainCode, formatDay, formatRange, formatTime, zoneName } from './time';

type Slot = { start: string; end: string };
type Props = {
  token: string;
  owner: string;
  tz: string;
  onDone: (view: PublicProposalPage) => void;
  onKeep: () => void;
};

/** The API's page size of suggestions (MAX_SUGGESTED_TIMES). */
const MAX_SHOWN = 50;

/**
 * "Ask to move" (docs/public-scheduling.md "Asking to move"): the meeting type's suggested
 * times for the meeting's length (requester.moveTimes, shown in the requester's zone), a pick,
 * an optional note, then requester.requestMove. Loaded on the click that opens it
 * (./lazy-move-form.tsx), like the cancel form.
 */
export function MoveRequestForm({ token, owner, tz, onDone, onKeep }: Props) {
  const [from, setFrom] = useState<string | undefined>(undefined);
  const [round, setRound] = useState(0);
  // The answer for the page asked for (`key`): another key's answer reads as still loading.
  const key = `${from ?? ''}|${round}`;
  const [loaded, setLoaded] = useState<{ key: string; slots: Slot[] } | null>(null);
  const slots = loaded?.key === key ? loaded.slots : null;
  const [loadFailed, setLoadFailed] = useState(false);
  const [slot, setSlot] = useState<Slot | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const heading = useRef<HTMLParagraphElement>(null);
  const form = useZodForm(MoveRequestNote, { defaultValues: { note: '' } });
  const { register, handleSubmit, formState } = form;

  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    let live = true;
    requesterApi()
      .then(({ requester }) => requester.moveTimes.query({ token, ...(from ? { from } : {}) }))
      .then(
        (r) => {
          if (live) setLoaded({ key, slots: r.suggested_times });
        },
        () => {
          if (live) setLoadFailed(true);
        },
      );
    return () => {
      live = false;
    };
  }, [token, from, key]);

  const onSubmit = handleSubmit(async (v) => {
    if (!slot) return;
    setFailure(null);
    try {
      const { requester } = await requesterApi();
      onDone(await requester.requestMove.mutate({ token, start: slot.start, end: slot.end, time_zone: currentTimeZone(), ...(v.note ? { note: v.note } : {}) }));
    } catch (err) {
      const code = domainCode(err);
      if (code === 'time_unavailable') {
        setSlot(null);
        setFailure('Sorry, that time was just taken. Please pick another one.');
        setRound((r) => r + 1);
      } else if (code === 'move_pending') setFailure('A request to move this meeting is already waiting. Reload the page to see it.');
      else if (code === 'not_movable') setFailure('This meeting can no longer be moved here. Reload the page to see where it stands.');
      else if (code === 'rate_limited') setFailure('Too many attempts. Please try again in a minute.');
      else setFailure('The request could not be sent. Please try again.');
    }
  });

  const days: { day: string; slots: Slot[] }[] = [];
  for (const s of slots ?? []) {
    const day = formatDay(s.start, tz);
    if (days.at(-1)?.day !== day) days.push({ day, slots: [] });
    days.at(-1)!.slots.push(s);
  }

  return (
    <form
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="move-q"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onKeep();
      }}
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-4"
    >
      <p id="move-q" ref={heading} tabIndex={-1} className="font-semibold outline-none">
        Ask to move this meeting
      </p>
      <p className="text-sm text-muted">Pick a new time. {owner} gets your request and decides; until then the meeting stays where it is.</p>
      {loadFailed ? (
        <Alert tone="danger">The free times could not be loaded. Please reload the page.</Alert>
      ) : slots === null ? (
        <p className="text-sm text-muted" aria-busy="true">
          Loading free times…
        </p>
      ) : !slots.length ? (
        <Alert>No other free times in the next two weeks.</Alert>
      ) : (
        <div className="flex flex-col gap-4" role="group" aria-label="New time">
          {days.map(({ day, slots: daySlots }) => (
            <div key={day} role="group" aria-label={day}>
              <h3 className="mb-2 text-sm font-semibold">{day}</h3>
              <ul className="grid grid-cols-3 gap-2 sm:grid-cols-4">
                {daySlots.map((s) => {
                  const on = slot?.start === s.start;
                  return (
                    <li key={s.start}>
                      <button
                        type="button"
                        className={buttonClasses(on ? 'primary' : 'secondary', 'md', 'w-full')}
                        aria-pressed={on}
                        aria-label={`${day}, ${formatTime(s.start, tz)}`}
                        data-move-start={s.start}
                        onClick={() => setSlot(s)}
                      >
                        {formatTime(s.start, tz)}
                      </button>
                    </li>
                  );
                })}
              </ul>
            </div>
          ))}
          {slots.length >= MAX_SHOWN && (
            <button type="button" className={buttonClasses('secondary', 'md', 'self-start')} onClick={() => setFrom(slots.at(-1)!.end)}>
              Later times
              <ChevronRight aria-hidden />
            </button>
          )}
        </div>
      )}
      {slot && (
        <p className="rounded-md border border-line bg-surface-2 px-3 py-2 text-sm" aria-live="polite">
          New time: {formatRange(slot.start, slot.end, tz)} <span className="text-muted">({zoneName(tz, new Date(slot.start))})</span>
        </p>
      )}
      <Field label="Note for the calendar owner (optional)" error={formState.errors.note?.message}>
        <Textarea rows={2} {...register('note')} />
      </Field>
      {failure && <Alert tone="danger">{failure}</Alert>}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClasses('primary')} disabled={!slot || formState.isSubmitting}>
          Send request to move
        </button>
        <button type="button" className={buttonClasses('secondary')} onClick={onKeep}>
          Keep the current time
        </button>
      </div>
    </form>
  );
}
