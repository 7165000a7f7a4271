'use client';

import { useEffect, useState } from 'react';
import { useFieldArray } from 'react-hook-form';
import { useTranslations } from 'next-intl';
import { z } from 'zod';
import { Alert } from '@/components/ui/alert';
import { Form } from '@/components/ui/hydrated-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input, Textarea } from '@/components/ui/input';
import { useZodForm } from '@/components/ui/form';
import { MAX_PROPOSAL_ATTENDEES as MAX_LISTED_ATTENDEES, ProposalSubmitBody } from '@/server/schemas/public';
import { requesterApi } from './api';
import { Plus, Trash2 } from '@/components/ui/icons';
import { currentTimeZone } from '@/components/public/time-zone';
import { readServerError } from '@/components/ui/server-error';
import { useIssueWords } from './issue-words';
import { REPEAT_SHAPE, RepeatWeeklyField, unavailableWeeksOf, UnavailableWeeks, weeksCheck, type Week } from './repeat-weekly';

/**
 * The request form: the fields of the /public submission body, validated in
 * the browser with the same zod pieces the API validates with
 * (server/schemas/public.ts); the page asks for a name, which the API
 * leaves optional.
 */
const Contact = ProposalSubmitBody.shape.requester_contact.shape;
const FormSchema = z.object({
  name: Contact.name.unwrap(),
  email: Contact.email,
  attendees: z.array(z.object({ email: Contact.email })),
  message: ProposalSubmitBody.shape.message,
  ...REPEAT_SHAPE,
});

import type { SubmittedInfo } from './submitted';
import { emitEmbedEvent, tokenOf } from './embed-events';

type Props = {
  link: string;
  /** The meeting type's own limit (people, the requester included); null: none. */
  attendeeLimit: number | null;
  /** A suggested time of a meeting type; absent for a request in the requester's own words (message required). */
  structured?: { slug: string; duration: number; slot: { start: string; end: string } };
  onDone: (info: SubmittedInfo) => void;
  onTimeTaken?: () => void;
  /** Put the keyboard focus in the first field once shown (the form opened on request). */
  focusFirst?: boolean;
  /** The type offers "Repeat weekly for N weeks", up to this many (docs/public-scheduling.md "Repeating weekly"); null or absent: not offered. */
  repeatMaxWeeks?: number | null;
  /** The zone the page shows times in (the weeks that are not free are listed in it). */
  tz?: string;
  /** Back to the times, to pick another one (some weeks of a weekly request were not free). */
  onPickAnother?: () => void;
};

export function RequestForm({ link, attendeeLimit, structured, onDone, onTimeTaken, focusFirst, repeatMaxWeeks, tz, onPickAnother }: Props) {
  const [failure, setFailure] = useState<string | null>(null);
  const [notFree, setNotFree] = useState<Week[] | null>(null);
  const t = useTranslations('form');
  const repeatMax = structured && repeatMaxWeeks ? repeatMaxWeeks : null;
  const form = useZodForm(
    structured
      ? FormSchema.superRefine(weeksCheck(repeatMax, t('repeatRange', { max: repeatMax ?? 0 })))
      : FormSchema.extend({ message: z.string().trim().min(1).max(5000) }),
    { defaultValues: { name: '', email: '', attendees: [], message: '', repeat: false, weeks: Math.min(4, repeatMax ?? 4) } },
    useIssueWords(),
  );
  const { register, handleSubmit, formState, control, setError, watch } = form;
  const attendees = useFieldArray({ control, name: 'attendees' });
  // Without a limit of the type's own, only the API's 50 `attendees` items apply (the requester is not one of them).
  const maxGuests = attendeeLimit === null ? MAX_LISTED_ATTENDEES : Math.max(0, attendeeLimit - 1);
  const errors = formState.errors;
  const { setFocus } = form;
  useEffect(() => {
    if (focusFirst) setFocus('name');
  }, [focusFirst, setFocus]);

  const onSubmit = handleSubmit(async (v) => {
    setFailure(null);
    setNotFree(null);
    const values = v as z.output<typeof FormSchema> & { repeat?: boolean; weeks?: number };
    const weeks = repeatMax && values.repeat ? values.weeks : undefined;
    try {
      const { requester } = await requesterApi();
      const out = await requester.submit.mutate({
        link,
        time_zone: currentTimeZone(),
        requester_contact: { email: values.email, name: values.name },
        attendees: values.attendees.map((a) => ({ email: a.email })),
        ...(values.message?.trim() ? { message: values.message.trim() } : {}),
        ...(structured ? { public_meeting_type: structured.slug, duration_minutes: structured.duration, requested_window: structured.slot } : {}),
        ...(weeks ? { repeat_weeks: weeks } : {}),
      });
      onDone({ email: values.email, statusUrl: out.status_url, weeks });
      // The host page of an embed, if any (docs/public-scheduling.md "Embedding").
      void emitEmbedEvent('booking.proposed', tokenOf(out.status_url), { link, ...(structured ? { meeting_type: structured.slug } : {}) });
    } catch (err) {
      const e = readServerError(err);
      const code = e.code;
      const weeksNotFree = unavailableWeeksOf(e.extra);
      // Some weeks of a weekly request are not free: say which, and let the requester pick another time or fewer weeks.
      if (weeksNotFree) setNotFree(weeksNotFree);
      else if (code === 'time_unavailable' && onTimeTaken) onTimeTaken();
      else if (code === 'attendee_limit_exceeded') setError('attendees', { message: attendeeLimit === null ? t('tooManyOthers', { max: MAX_LISTED_ATTENDEES }) : t('tooMany', { max: attendeeLimit }) });
      else if (code === 'rate_limited') setFailure(t('rateLimited'));
      else if (code === 'not_found') setFailure(t('gone'));
      else if (code === 'time_unavailable') setFailure(t('unavailable'));
      else setFailure(t('failed'));
    }
  });

  return (
    <Form onSubmit={(e) => (formState.isSubmitting ? e.preventDefault() : onSubmit(e))} noValidate className="flex flex-col gap-4" aria-label={structured ? t('formTime') : t('formFree')}>
      <Field label={t('name')} error={errors.name?.message}>
        <Input autoComplete="name" {...register('name')} />
      </Field>
      <Field label={t('email')} error={errors.email?.message} hint={t('emailHint')}>
        <Input type="email" autoComplete="email" inputMode="email" {...register('email')} />
      </Field>

      {maxGuests > 0 && (
        <fieldset className="flex flex-col gap-3">
          <legend className="text-sm font-medium">{t('others')}</legend>
          {attendeeLimit !== null && (
            <p className="mt-1 text-xs text-muted">
              {t('upTo', { max: attendeeLimit })}
            </p>
          )}
          {attendees.fields.map((f, i) => (
            <div key={f.id} className="flex items-end gap-2">
              <Field label={t('attendee', { n: i + 1 })} error={errors.attendees?.[i]?.email?.message} className="flex-1">
                <Input type="email" autoComplete="off" {...register(`attendees.${i}.email` as const)} />
              </Field>
              <Button variant="ghost" size="icon" aria-label={t('remove', { n: i + 1 })} onClick={() => attendees.remove(i)}>
                <Trash2 aria-hidden />
              </Button>
            </div>
          ))}
          {errors.attendees?.message && (
            <p className="text-sm text-danger" role="alert">
              {errors.attendees.message}
            </p>
          )}
          {attendees.fields.length < maxGuests && (
            <Button variant="secondary" size="sm" className="self-start" onClick={() => attendees.append({ email: '' })}>
              <Plus aria-hidden />
              {t('add')}
            </Button>
          )}
        </fieldset>
      )}

      <Field label={structured ? t('message') : t('about')} error={errors.message?.message}>
        <Textarea rows={4} {...register('message')} />
      </Field>

      {repeatMax && <RepeatWeeklyField max={repeatMax} on={Boolean(watch('repeat'))} checkbox={register('repeat')} weeks={register('weeks', { valueAsNumber: true })} error={errors.weeks?.message} />}

      {notFree && <UnavailableWeeks weeks={notFree} tz={tz} onPickAnother={onPickAnother} />}
      {failure && <Alert tone="danger">{failure}</Alert>}
      {/* aria-disabled, not disabled, while sending: a disabled button drops the keyboard focus to <body> (docs/public-scheduling.md "Keyboard and screen readers"). */}
      <Button type="submit" aria-disabled={formState.isSubmitting} className="self-stretch aria-disabled:cursor-wait aria-disabled:opacity-50 sm:self-start">
        {formState.isSubmitting ? t('sending') : t('send')}
      </Button>
    </Form>
  );
}
