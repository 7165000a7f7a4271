'use client';

import { useEffect, useRef, useState } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import type { PublicProposalPage } from '@/server/domain/publicScheduling/requester';
import { Alert } from '@/components/ui/alert';
import { Form } from '@/components/ui/hydrated-form';
import { buttonClasses } from '@/components/ui/button-classes';
import { Field } from '@/components/ui/field';
import { Textarea } from '@/components/ui/input';
import { useZodForm } from '@/components/ui/form';
import { MoveRequestNote } from '@/server/schemas/public';
import { requesterApi } from './api';
import { ChevronRight } from '@/components/ui/icons';
import { formatViewerSlot, zoneName } from '@/components/ui/time-format';
import { currentTimeZone } from '@/components/public/time-zone';
import { readServerError } from '@/components/ui/server-error';
import { SlotGrid, type Slot } from './time-grid';
import { useIssueWords } from './issue-words';

type Props = {
  token: string;
  owner: string | null;
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
  const t = useTranslations('move');
  const locale = useFormatLocale();
  const form = useZodForm(MoveRequestNote, { defaultValues: { note: '' } }, useIssueWords());
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
      const code = readServerError(err).code;
      if (code === 'time_unavailable') {
        setSlot(null);
        setFailure(t('taken'));
        setRound((r) => r + 1);
      } else if (code === 'move_pending') setFailure(t('pending'));
      else if (code === 'not_movable') setFailure(t('notMovable'));
      else if (code === 'rate_limited') setFailure(t('rateLimited'));
      else setFailure(t('failed'));
    }
  });


  return (
    <Form
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="move-q"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onKeep();
      }}
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-4"
    >
      <p id="move-q" ref={heading} tabIndex={-1} className="font-semibold outline-none">
        {t('question')}
      </p>
      <p className="text-sm text-muted">{owner ? t('text', { owner }) : t('textAnon')}</p>
      {loadFailed ? (
        <Alert tone="danger">{t('loadFailed')}</Alert>
      ) : slots === null ? (
        <p className="text-sm text-muted" aria-busy="true">
          {t('loading')}
        </p>
      ) : !slots.length ? (
        <Alert>{t('none')}</Alert>
      ) : (
        <div className="flex flex-col gap-4">
          <SlotGrid slots={slots} tz={tz} selected={slot} onSelect={setSlot} label={t('newTime')} attribute="data-move-start" />
          {slots.length >= MAX_SHOWN && (
            <button type="button" className={buttonClasses('secondary', 'md', 'self-start')} onClick={() => setFrom(slots.at(-1)!.end)}>
              {t('later')}
              <ChevronRight className="rtl:-scale-x-100" aria-hidden />
            </button>
          )}
        </div>
      )}
      {slot && (
        <p className="rounded-md border border-line bg-surface-2 px-3 py-2 text-sm" aria-live="polite">
          {t.rich('chosen', { when: formatViewerSlot(slot.start, slot.end, tz, locale), zone: zoneName(tz, new Date(slot.start), locale), muted: (c) => <span className="text-muted">{c}</span> })}
        </p>
      )}
      <Field label={t('note')} error={formState.errors.note?.message}>
        <Textarea rows={2} {...register('note')} />
      </Field>
      {failure && <Alert tone="danger">{failure}</Alert>}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClasses('primary')} disabled={!slot || formState.isSubmitting}>
          {t('send')}
        </button>
        <button type="button" className={buttonClasses('secondary')} onClick={onKeep}>
          {t('keep')}
        </button>
      </div>
    </Form>
  );
}
