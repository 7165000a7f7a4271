'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useTranslations } from 'next-intl';
import { Alert } from '@/components/ui/alert';
import { Form } from '@/components/ui/hydrated-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { requesterApi } from './api';
import { KeyRound } from '@/components/ui/icons';
import { readServerError } from '@/components/ui/server-error';

/**
 * A requester credential (`rc_...`, handed out by the calendar owner's
 * organisation) unlocks meeting types meant for particular people. Saved in
 * an HttpOnly cookie by the server, never in the address bar.
 */
export function CredentialForm({ link, saved, rejected }: { link: string; saved: boolean; rejected: boolean }) {
  const router = useRouter();
  const [sending, setSending] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const t = useTranslations('credential');

  const onForget = async () => {
    await (await requesterApi()).requester.forgetCredential.mutate();
    router.refresh();
  };

  if (saved && !rejected) {
    return (
      <p className="flex flex-wrap items-center gap-2 text-sm text-muted">
        <KeyRound className="size-4" aria-hidden />
        {t('using')}
        <Button variant="ghost" size="sm" onClick={onForget}>
          {t('forgetIt')}
        </Button>
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      {rejected && (
        <Alert tone="warn">
          {t('rejected')}{' '}
          <Button variant="ghost" size="sm" onClick={onForget}>
            {t('forget')}
          </Button>
        </Alert>
      )}
      <details className="group text-sm">
        <summary className="cursor-pointer text-muted">{t('have')}</summary>
        <Form
          className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            setSending(true);
            try {
              await (await requesterApi()).requester.useCredential.mutate({ link, credential: value.trim() });
              setValue('');
              router.refresh();
            } catch (err) {
              setError(readServerError(err).code === 'rate_limited' ? t('rateLimited') : t('invalid'));
            } finally {
              setSending(false);
            }
          }}
        >
          <Field label={t('label')} error={error} className="flex-1" hint={t('hint')}>
            <Input value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" spellCheck={false} required />
          </Field>
          <Button type="submit" variant="secondary" disabled={sending || !value.trim()}>
            {t('use')}
          </Button>
        </Form>
      </details>
    </div>
  );
}
