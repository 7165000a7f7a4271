'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { readServerError, showServerError } from '@/components/ui/server-error';
import { Alert, Button, Field, FieldError, Input, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { CaldavAccountInput } from '@/server/schemas/calendars';

type Account = { server_url: string; username: string; password: string };
type Found = { url: string; display_name: string };

/**
 * Connect CalDAV in two steps: the account (calendars.discoverCaldav lists
 * its calendars, nothing is stored), then the calendar(s) to connect
 * (calendars.connectCaldav stores the sealed password and runs the first sync).
 */
export function CaldavConnect() {
  const trpc = useTRPC();
  const router = useRouter();
  const discover = useMutation(trpc.calendars.discoverCaldav.mutationOptions());
  const connect = useMutation(trpc.calendars.connectCaldav.mutationOptions());
  const [account, setAccount] = useState<Account | null>(null);
  const [found, setFound] = useState<Found[]>([]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [makePrimary, setMakePrimary] = useState(false);
  const [checkConflicts, setCheckConflicts] = useState(true);
  const [pickError, setPickError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const { register, handleSubmit, setError, formState, reset } = useZodForm(CaldavAccountInput, { defaultValues: { server_url: '', username: '', password: '' } });

  const onDiscover = handleSubmit(async (input) => {
    setDone(null);
    try {
      const { calendars } = await discover.mutateAsync(input);
      if (!calendars.length) {
        setError('root', { type: 'server', message: 'This account has no calendars.' });
        return;
      }
      setAccount(input);
      setFound(calendars);
      setChosen([calendars[0].url]);
    } catch (err) {
      showServerError(err, setError, 'root');
    }
  });

  const onConnect = async () => {
    if (!account) return;
    setPickError(null);
    if (!chosen.length) {
      setPickError('Choose at least one calendar');
      return;
    }
    try {
      const { calendars } = await connect.mutateAsync({ ...account, calendar_urls: chosen, make_primary: makePrimary, check_conflicts: checkConflicts });
      setDone(`Connected ${calendars.map((c) => c.display_name ?? c.type).join(', ')}.`);
      setAccount(null);
      setFound([]);
      reset({ server_url: '', username: '', password: '' });
      router.refresh();
    } catch (err) {
      setPickError(readServerError(err).message);
    }
  };

  if (account)
    return (
      <div className="flex flex-col gap-4">
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">Calendars of {account.username}</legend>
          {found.map((c) => (
            <label key={c.url} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                className="size-4"
                checked={chosen.includes(c.url)}
                onChange={(e) => setChosen((prev) => (e.target.checked ? [...prev, c.url] : prev.filter((u) => u !== c.url)))}
              />
              {c.display_name}
            </label>
          ))}
        </fieldset>
        <div className="flex flex-col gap-2 border-t border-line pt-3 text-sm">
          <label className="flex items-center gap-2">
            <input type="checkbox" className="size-4" checked={checkConflicts} onChange={(e) => setCheckConflicts(e.target.checked)} />
            Check for conflicts (events count as busy time)
          </label>
          <label className="flex items-center gap-2">
            <input type="checkbox" className="size-4" checked={makePrimary} onChange={(e) => setMakePrimary(e.target.checked)} />
            Make the first chosen calendar primary (bookings are written to it)
          </label>
        </div>
        <FieldError message={pickError} />
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={() => setAccount(null)}>
            Back
          </Button>
          <Button onClick={onConnect} disabled={connect.isPending}>
            {connect.isPending ? 'Connecting…' : 'Connect'}
          </Button>
        </div>
      </div>
    );

  return (
    <Form onSubmit={onDiscover} noValidate className="flex flex-col gap-4">
      {done && <Alert tone="ok">{done}</Alert>}
      <Field label="Server URL" hint="The CalDAV address your provider gives, e.g. https://caldav.fastmail.com/" error={formState.errors.server_url?.message}>
        <Input type="url" autoComplete="url" spellCheck={false} {...register('server_url')} />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="User name" error={formState.errors.username?.message}>
          <Input autoComplete="username" spellCheck={false} {...register('username')} />
        </Field>
        <Field label="Password or app password" hint="Stored encrypted; never shown again" error={formState.errors.password?.message}>
          <Input type="password" autoComplete="current-password" {...register('password')} />
        </Field>
      </div>
      {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
      <div className="flex justify-end">
        <Button type="submit" disabled={formState.isSubmitting}>
          {formState.isSubmitting ? 'Looking for calendars…' : 'Find calendars'}
        </Button>
      </div>
    </Form>
  );
}
