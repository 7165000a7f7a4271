'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { showServerError } from '@/components/ui/server-error';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Input, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { CaldavReconnectInput } from '@/server/schemas/calendars';

/** Reconnect a CalDAV calendar with a new password (calendars.reconnectCaldav): same server, user and calendar. */
export function ReconnectCaldav({ calendarId, name }: { calendarId: string; name: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const reconnect = useMutation(trpc.calendars.reconnectCaldav.mutationOptions());
  const { register, handleSubmit, setError, formState, reset } = useZodForm(CaldavReconnectInput, { defaultValues: { calendar_id: calendarId, password: '' } });
  const onSubmit = handleSubmit(async (input) => {
    try {
      const result = await reconnect.mutateAsync(input);
      if (result.status !== 'active') {
        setError('password', { type: 'server', message: result.last_sync_error ?? 'The server still refuses these credentials' });
        return;
      }
      reset({ calendar_id: calendarId, password: '' });
      setOpen(false);
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'password');
    }
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm" aria-label={`Reconnect ${name}`}>
          Reconnect
        </Button>
      </DialogTrigger>
      <DialogContent title={`Reconnect ${name}`} description="Enter the account's current password or app password. The server, user name and calendar stay as they are.">
        <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <Field label="Password or app password" error={formState.errors.password?.message}>
            <Input type="password" autoComplete="current-password" {...register('password')} />
          </Field>
          {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
          <div className="flex justify-end">
            <Button type="submit" disabled={formState.isSubmitting}>
              {formState.isSubmitting ? 'Reconnecting…' : 'Reconnect'}
            </Button>
          </div>
        </Form>
      </DialogContent>
    </Dialog>
  );
}
