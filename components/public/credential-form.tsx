'use client';

import { useMutation } from '@tanstack/react-query';
import { KeyRound } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useTRPC } from '@/app/providers';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { domainCode } from './time';

/**
 * A requester credential (`rc_...`, handed out by the calendar owner's
 * organisation) unlocks meeting types meant for particular people. Saved in
 * an HttpOnly cookie by the server, never in the address bar.
 */
export function CredentialForm({ link, saved, rejected }: { link: string; saved: boolean; rejected: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const use = useMutation(trpc.requester.useCredential.mutationOptions());
  const forget = useMutation(trpc.requester.forgetCredential.mutationOptions());
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();

  const onForget = async () => {
    await forget.mutateAsync();
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
            try {
              await use.mutateAsync({ link, credential: value.trim() });
              setValue('');
              router.refresh();
            } catch (err) {
              setError(domainCode(err) === 'rate_limited' ? 'Too many attempts. Please try again in a minute.' : 'This key is not valid for this page.');
            }
          }}
        >
          <Field label="Access key" error={error} className="flex-1" hint="Some meetings are only offered to people with a key.">
            <Input value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" spellCheck={false} required />
          </Field>
          <Button type="submit" variant="secondary" disabled={use.isPending || !value.trim()}>
            Use key
          </Button>
        </form>
      </details>
    </div>
  );
}
