'use client';

import { useEffect, useState } from 'react';
import { useTranslations } from 'next-intl';
import type { PublicProposalPage } from '@/server/domain/publicScheduling/requester';
import { Alert } from '@/components/ui/alert';
import { Form } from '@/components/ui/hydrated-form';
import { buttonClasses } from '@/components/ui/button-classes';
import { Field } from '@/components/ui/field';
import { Textarea } from '@/components/ui/input';
import { useZodForm } from '@/components/ui/form';
import { CancelMeetingInput } from '@/server/schemas/public';
import { requesterApi } from './api';
import { readServerError } from '@/components/ui/server-error';
import { useIssueWords } from './issue-words';

type Props = {
  token: string;
  owner: string | null;
  onDone: (view: PublicProposalPage) => void;
  onKeep: () => void;
};

/**
 * "Cancel this meeting" (docs/public-scheduling.md "Status page"): an
 * optional reason, validated with the procedure's own schema, sent through
 * requester.cancelMeeting. Loaded on demand (./lazy-cancel-form.tsx).
 */
export function CancelMeetingForm({ token, owner, onDone, onKeep }: Props) {
  const [failure, setFailure] = useState<string | null>(null);
  const t = useTranslations('cancel');
  const form = useZodForm(CancelMeetingInput, { defaultValues: { reason: '' } }, useIssueWords());
  const { register, handleSubmit, formState, setFocus } = form;
  useEffect(() => setFocus('reason'), [setFocus]);

  const onSubmit = handleSubmit(async (v) => {
    setFailure(null);
    try {
      const { requester } = await requesterApi();
      onDone(await requester.cancelMeeting.mutate({ token, ...(v.reason ? { reason: v.reason } : {}) }));
    } catch (err) {
      const code = readServerError(err).code;
      if (code === 'not_cancellable') setFailure(t('notCancellable'));
      else if (code === 'rate_limited') setFailure(t('rateLimited'));
      else setFailure(t('failed'));
    }
  });

  return (
    <Form
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="cancel-q"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onKeep();
      }}
      className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
    >
      <p id="cancel-q" className="font-semibold">
        {t('question')}
      </p>
      <p className="text-sm text-muted">{owner ? t('text', { owner }) : t('textAnon')}</p>
      <Field label={t('reason')} error={formState.errors.reason?.message}>
        <Textarea rows={3} {...register('reason')} />
      </Field>
      {failure && <Alert tone="danger">{failure}</Alert>}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClasses('danger')} disabled={formState.isSubmitting}>
          {t('yes')}
        </button>
        <button type="button" className={buttonClasses('secondary')} onClick={onKeep}>
          {t('keep')}
        </button>
      </div>
    </Form>
  );
}
