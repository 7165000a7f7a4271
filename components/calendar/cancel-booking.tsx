'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { CalendarX2 } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { CancelBookingInput } from '@/server/trpc/schemas';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Textarea } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';

/**
 * "Cancel booking" in a booking's details (calendar.cancel): a reason is
 * required, because its agent and attendees receive it; the page refreshes to
 * show the booking cancelled, with the reason in its history. A group's booking
 * (`coHosts`: the other hosts' names) is cancelled for every host (docs/groups.md,
 * cancel cancels all): the dialog says so and names them.
 */
export function CancelBooking({ bookingId, title, coHosts }: { bookingId: string; title: string; coHosts?: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const form = useZodForm(CancelBookingInput, { defaultValues: { booking_id: bookingId, reason: '' } });
  const cancel = useMutation(trpc.calendar.cancel.mutationOptions());
  const submit = form.handleSubmit(async (values) => {
    try {
      await cancel.mutateAsync(values);
      setOpen(false);
      router.refresh();
    } catch (err) {
      showServerError(err, form.setError, 'root');
    }
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="danger" size="sm">
          <CalendarX2 aria-hidden /> Cancel booking
        </Button>
      </DialogTrigger>
      <DialogContent
        title={coHosts?.length ? `Cancel “${title}” for every host?` : `Cancel “${title}”?`}
        description={
          coHosts?.length
            ? `This is a group meeting: it is cancelled for every host, ${listInWords(['you', ...coHosts])}. The time becomes free again for all of you. Its agent and attendees are told it was cancelled, with your reason.`
            : 'The time becomes free again. Its agent and attendees are told it was cancelled, with your reason.'
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          <Field label="Reason" hint="Sent to the agent and the attendees." error={form.formState.errors.reason?.message}>
            <Textarea rows={3} {...form.register('reason')} />
          </Field>
          {form.formState.errors.root && <Alert tone="danger">{form.formState.errors.root.message}</Alert>}
          <div className="flex flex-wrap justify-end gap-2">
            <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
              Keep it
            </Button>
            <Button type="submit" variant="danger" disabled={cancel.isPending}>
              {cancel.isPending ? 'Cancelling…' : coHosts?.length ? 'Cancel for every host' : 'Cancel booking'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** "you and Lee", "you, Lee and Sam". */
function listInWords(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
