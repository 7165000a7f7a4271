'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { requesterApi } from './api';
import { KeyRound } from './icons';
import { domainCode } from './time';

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

  const onForget = async () => {
    await (await requesterApi()).requester.forgetCredential.mutate();
    router.refresh();
  };

  if (saved && !rejected) {
    return (
      <p className="flex flex-wrap items-center gap-2 text-sm text-muted">
        <KeyRound className="size-4" aria-hidden />
        Using your access key.
        <Button variant="ghost" size="sm" onClick={onForget}>
          Forget it
        </Button>
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      {rejected && (
        <Alert tone="warn">
          Your saved access key does not work here, so you see what everyone sees.{' '}
          <Button variant="ghost" size="sm" onClick={onForget}>
            Forget the key
          </Button>
        </Alert>
      )}
      <details className="group text-sm">
        <summary className="cursor-pointer text-muted">Have an access key?</summary>
        <form
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
              setError(domainCode(err) === 'rate_limited' ? 'Too many attempts. Please try again in a minute.' : 'This key is not valid for this page.');
            } finally {
              setSending(false);
            }
          }}
        >
          <Field label="Access key" error={error} className="flex-1" hint="Some meetings are only offered to people with a key.">
            <Input value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" spellCheck={false} required />
          </Field>
          <Button type="submit" variant="secondary" disabled={sending || !value.trim()}>
            Use key
          </Button>
        </form>
      </details>
    </div>
  );
}
