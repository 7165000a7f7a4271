'use client';

import { useState } from 'react';
import { useTranslations } from 'next-intl';
import { z } from 'zod';
import { Alert } from '@/components/ui/alert';
import { Form } from '@/components/ui/hydrated-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { useZodForm } from '@/components/ui/form';
import { readServerError } from '@/components/ui/server-error';
import { WaitlistJoinForm } from '@/server/schemas/public';
import { requesterApi } from './api';
import { useIssueWords } from './issue-words';

/**
 * "Join the waitlist" (docs/public-scheduling.md "Waitlist"), under a meeting type's times: for
 * the day picked (or any day typed in), the whole day or some hours of it, with a name and an
 * email, validated with the API's own zod pieces (server/schemas/public.ts WaitlistJoinForm). The
 * join mail carries the entry's page; the answer here only says it was sent.
 */
const Shape = WaitlistJoinForm.shape;
const FormSchema = z
  .object({ date: Shape.date, hours: z.enum(['day', 'some']), from: z.string(), to: z.string(), name: Shape.name.unwrap(), email: Shape.email })
  .refine((v) => v.hours === 'day' || Shape.from.unwrap().safeParse(v.from).success, { path: ['from'], message: 'must be HH:MM' })
  .refine((v) => v.hours === 'day' || (Shape.to.unwrap().safeParse(v.to).success && v.to > v.from), { path: ['to'], message: 'must be after from' });

type Props = { link: string; slug: string; duration: number; tz: string; day: string | null };

export function WaitlistJoin({ link, slug, duration, tz, day }: Props) {
  const t = useTranslations('waitlist');
  const [open, setOpen] = useState(false);
  const [joined, setJoined] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const form = useZodForm(FormSchema, { defaultValues: { date: day ?? '', hours: 'day', from: '', to: '', name: '', email: '' } }, useIssueWords());
  const { register, handleSubmit, formState, watch } = form;
  const errors = formState.errors;
  const some = watch('hours') === 'some';

  const onSubmit = handleSubmit(async (v) => {
    setFailure(null);
    try {
      const { requester } = await requesterApi();
      await requester.joinWaitlist.mutate({
        link,
        slug,
        time_zone: tz,
        form: { duration_minutes: duration, date: v.date, ...(v.hours === 'some' ? { from: v.from, to: v.to } : {}), name: v.name, email: v.email },
      });
      setJoined(v.email);
    } catch (err) {
      const code = readServerError(err).code;
      setFailure(code === 'waitlist_full' ? t('tooMany') : code === 'WINDOW_TOO_NARROW' ? t('narrow') : code === 'PAST_TIME' ? t('past') : t('failed'));
    }
  });

  if (joined) {
    return (
      <Alert tone="ok">
        {t('joined', { email: joined })}
      </Alert>
    );
  }
  if (!open) {
    return (
      <div className="flex flex-wrap items-center gap-3 rounded-md border border-line bg-surface-2 px-3 py-2 text-sm">
        <p className="flex-1">{t('prompt')}</p>
        <Button variant="secondary" size="sm" onClick={() => setOpen(true)}>
          {t('open')}
        </Button>
      </div>
    );
  }
  return (
    <section aria-labelledby="waitlist-heading" className="flex flex-col gap-4 rounded-md border border-line p-4">
      <h3 id="waitlist-heading" className="text-base font-semibold">
        {t('heading')}
      </h3>
      <p className="text-sm text-muted">{t('intro')}</p>
      <Form onSubmit={(e) => (formState.isSubmitting ? e.preventDefault() : onSubmit(e))} noValidate className="flex flex-col gap-4" aria-labelledby="waitlist-heading">
        <Field label={t('day')} error={errors.date?.message}>
          <Input type="date" {...register('date')} />
        </Field>
        <fieldset className="flex flex-col gap-2 text-sm">
          <legend className="sr-only">{t('day')}</legend>
          <label className="flex items-center gap-2">
            <input type="radio" value="day" className="size-4 accent-accent" {...register('hours')} />
            {t('anyTime')}
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" value="some" className="size-4 accent-accent" {...register('hours')} />
            {t('between')}
          </label>
        </fieldset>
        {some && (
          <div className="grid grid-cols-2 gap-3">
            <Field label={t('from')} error={errors.from?.message}>
              <Input type="time" step={900} {...register('from')} />
            </Field>
            <Field label={t('to')} error={errors.to?.message}>
              <Input type="time" step={900} {...register('to')} />
            </Field>
          </div>
        )}
        <Field label={t('name')} error={errors.name?.message}>
          <Input autoComplete="name" {...register('name')} />
        </Field>
        <Field label={t('email')} error={errors.email?.message}>
          <Input type="email" autoComplete="email" inputMode="email" {...register('email')} />
        </Field>
        {failure && <Alert tone="danger">{failure}</Alert>}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" aria-disabled={formState.isSubmitting} className="aria-disabled:cursor-wait aria-disabled:opacity-50">
            {formState.isSubmitting ? t('joining') : t('join')}
          </Button>
          <Button variant="ghost" onClick={() => setOpen(false)}>
            {t('cancel')}
          </Button>
        </div>
      </Form>
    </section>
  );
}
