'use client';

import { useEffect, useState } from 'react';
import type { PublicProposalPage } from '@/server/domain/publicScheduling/requester';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { Field } from '@/components/ui/field';
import { Textarea } from '@/components/ui/input';
import { useZodForm } from '@/components/ui/form';
import { CancelMeetingInput } from '@/server/schemas/public';
import { requesterApi } from './api';
import { domainCode } from './time';

type Props = {
  token: string;
  owner: string;
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
  const form = useZodForm(CancelMeetingInput, { defaultValues: { reason: '' } });
  const { register, handleSubmit, formState, setFocus } = form;
  useEffect(() => setFocus('reason'), [setFocus]);

  const onSubmit = handleSubmit(async (v) => {
    setFailure(null);
    try {
      const { requester } = await requesterApi();
      onDone(await requester.cancelMeeting.mutate({ token, ...(v.reason ? { reason: v.reason } : {}) }));
    } catch (err) {
      const code = domainCode(err);
      if (code === 'not_cancellable') setFailure('This meeting can no longer be cancelled here (it has started, or was already cancelled). Reload the page to see where it stands.');
      else if (code === 'rate_limited') setFailure('Too many attempts. Please try again in a minute.');
      else setFailure('The meeting could not be cancelled. Please try again.');
    }
  });

  return (
    <form
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="cancel-q"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onKeep();
      }}
      className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
    >
      <p id="cancel-q" className="font-semibold">
        Cancel this meeting?
      </p>
      <p className="text-sm text-muted">{owner} is told, with your reason, and the time becomes free again. This cannot be undone.</p>
      <Field label="Reason (optional)" error={formState.errors.reason?.message}>
        <Textarea rows={3} {...register('reason')} />
      </Field>
      {failure && <Alert tone="danger">{failure}</Alert>}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClasses('danger')} disabled={formState.isSubmitting}>
          Yes, cancel the meeting
        </button>
        <button type="button" className={buttonClasses('secondary')} onClick={onKeep}>
          Keep it
        </button>
      </div>
    </form>
  );
}
