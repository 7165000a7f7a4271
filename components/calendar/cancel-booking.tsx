'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { CalendarX2 } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { CancelBookingInput } from '@/server/trpc/schemas';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, RadioCard, RadioGroup, Textarea, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';

type Scope = 'occurrence' | 'following' | 'series';

/**
 * An occurrence of a recurring series: when it is ("Wed 9 Dec, 10:00–11:00"), and how many
 * meetings each scope would cancel (those still booked: from this one on, in the whole series).
 */
export type SeriesChoice = { when: string; following: number; all: number };

/**
 * "Cancel booking" in a booking's details, and "Cancel" on each occurrence of a series' page
 * (calendar.cancel): a reason is required, because its agent and attendees receive it; the page
 * refreshes to show the booking cancelled, with the reason in its history. A group's booking
 * (`coHosts`: the other hosts' names) is cancelled for every host (docs/groups.md, cancel cancels
 * all): the dialog says so and names them. An occurrence of a series (`series`) asks which
 * meetings: this one, this and the following ones, or the whole series (docs/dashboard.md
 * "Recurring series"); the server decides which are still booked.
 */
export function CancelBooking({ bookingId, title, coHosts, series, compact = false }: { bookingId: string; title: string; coHosts?: string[]; series?: SeriesChoice; compact?: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const form = useZodForm(CancelBookingInput, { defaultValues: { booking_id: bookingId, reason: '', ...(series ? { scope: 'occurrence' as const } : {}) } });
  const cancel = useMutation(trpc.calendar.cancel.mutationOptions());
  const scope = (form.watch('scope') ?? 'occurrence') as Scope;
  const submit = form.handleSubmit(async (values) => {
    try {
      await cancel.mutateAsync(values);
      setOpen(false);
      form.reset();
      router.refresh();
    } catch (err) {
      showServerError(err, form.setError, 'root');
    }
  });
  const label = coHosts?.length ? 'Cancel for every host' : series ? SUBMIT[scope](series) : 'Cancel booking';
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="danger" size="sm">
          <CalendarX2 aria-hidden /> {compact ? 'Cancel' : 'Cancel booking'}
          {compact && series && <span className="sr-only"> the meeting of {series.when}</span>}
        </Button>
      </DialogTrigger>
      <DialogContent
        title={coHosts?.length ? `Cancel “${title}” for every host?` : `Cancel “${title}”?`}
        description={
          coHosts?.length
            ? `This is a group meeting: it is cancelled for every host, ${listInWords(['you', ...coHosts])}. The time becomes free again for all of you. Its agent and attendees are told it was cancelled, with your reason.`
            : series
              ? `This meeting, ${series.when}, is part of a recurring series. The time becomes free again. Its agent and attendees are told of each meeting cancelled, with your reason.`
              : 'The time becomes free again. Its agent and attendees are told it was cancelled, with your reason.'
        }
      >
        <Form onSubmit={submit} noValidate className="flex flex-col gap-4">
          {series && (
            <fieldset className="flex flex-col gap-2">
              <legend className="mb-2 text-sm font-semibold">Which meetings</legend>
              <RadioGroup value={scope} onValueChange={(v) => form.setValue('scope', v as Scope)} aria-label="Which meetings">
                <RadioCard value="occurrence">
                  <span className="font-medium">This meeting only</span> <span className="text-muted">({series.when})</span>
                </RadioCard>
                <RadioCard value="following">
                  <span className="font-medium">This and the following meetings</span> <span className="text-muted">({meetings(series.following)} still booked)</span>
                </RadioCard>
                <RadioCard value="series">
                  <span className="font-medium">The whole series</span> <span className="text-muted">({meetings(series.all)} still booked)</span>
                </RadioCard>
              </RadioGroup>
            </fieldset>
          )}
          <Field label="Reason" hint="Sent to the agent and the attendees." error={form.formState.errors.reason?.message}>
            <Textarea rows={3} {...form.register('reason')} />
          </Field>
          {(form.formState.errors.root || form.formState.errors.scope) && <Alert tone="danger">{(form.formState.errors.root ?? form.formState.errors.scope)?.message}</Alert>}
          <div className="flex flex-wrap justify-end gap-2">
            <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
              Keep {series && scope !== 'occurrence' ? 'them' : 'it'}
            </Button>
            <Button type="submit" variant="danger" disabled={cancel.isPending}>
              {cancel.isPending ? 'Cancelling…' : label}
            </Button>
          </div>
        </Form>
      </DialogContent>
    </Dialog>
  );
}

const meetings = (n: number) => (n === 1 ? '1 meeting' : `${n} meetings`);

/** The submit button's words for each scope. */
const SUBMIT: Record<Scope, (s: SeriesChoice) => string> = {
  occurrence: () => 'Cancel this meeting',
  following: (s) => `Cancel ${s.following === 1 ? 'this meeting' : `these ${s.following} meetings`}`,
  series: () => 'Cancel the series',
};

/** "you and Lee", "you, Lee and Sam". */
function listInWords(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
