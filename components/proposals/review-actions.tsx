'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { AlertTriangle, Check, X } from 'lucide-react';
import { useTRPC } from '@/app/providers';
import type { AppRouter } from '@/server/trpc/router';
import { DeclineProposalInput } from '@/server/trpc/schemas';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, RadioCard, RadioGroup, Textarea } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { formatSpan } from '@/components/calendar/format';

/** A time the owner may approve at, with what it runs into on the week (prepared by the page). */
export type ReviewOption = { start: string; end: string; label: string; notes: string[] };

type Rejection = { message: string; reason?: string; alternatives: ReviewOption[] };

/**
 * Approve at a chosen time (proposals.approve: arbitration runs on the
 * server) or decline with an optional reason (proposals.decline). A refusal
 * shows arbitration's reason and its alternatives as further options.
 */
export function ReviewActions({ proposalId, options, timeZone }: { proposalId: string; options: ReviewOption[]; timeZone: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [choice, setChoice] = useState(options[0] ? `${options[0].start}|${options[0].end}` : '');
  const [rejection, setRejection] = useState<Rejection>();
  const approve = useMutation(
    trpc.proposals.approve.mutationOptions({
      onSuccess: () => router.refresh(),
      onError: (err) => {
        const domain = err instanceof TRPCClientError ? (err as TRPCClientError<AppRouter>).data?.domain : null;
        const alts = ((domain?.extra?.alternatives as { start: string; end: string; reason_code?: string }[] | undefined) ?? []).map((a) => ({
          start: a.start,
          end: a.end,
          label: formatSpan(a.start, a.end, timeZone),
          notes: [],
        }));
        // The first clause says why; the rest of the API's message speaks of the response's fields.
        const why = (domain?.message ?? err.message).split(';')[0].replace(/\.?$/, '.');
        setRejection({ message: why, reason: domain?.reason, alternatives: alts });
        if (alts[0]) setChoice(`${alts[0].start}|${alts[0].end}`);
      },
    }),
  );
  const all = [...options, ...(rejection?.alternatives ?? [])];
  const submit = () => {
    const [start, end] = choice.split('|');
    setRejection((r) => (r ? { ...r, message: '' } : r));
    approve.mutate({ proposal_id: proposalId, start, end });
  };

  return (
    <div className="flex flex-col gap-4">
      {all.length === 0 && <p className="text-sm text-muted">This request names no time to approve at. Contact the requester, or decline it.</p>}
      <fieldset className={all.length ? 'flex flex-col gap-2' : 'hidden'}>
        <legend className="mb-2 text-sm font-semibold">Approve at</legend>
        <RadioGroup value={choice} onValueChange={setChoice} aria-label="Time to approve at">
          {all.map((o, i) => (
            <RadioCard key={`${o.start}|${o.end}`} value={`${o.start}|${o.end}`} data-testid={`option-${i + 1}`}>
              <span className="flex flex-col">
                <span className="font-medium">
                  {i < options.length ? `${i + 1}. ` : 'Alternative: '}
                  {o.label}
                </span>
                {o.notes.map((n) => (
                  <span key={n} className="flex items-center gap-1 text-xs text-danger">
                    <AlertTriangle className="size-3" aria-hidden /> {n}
                  </span>
                ))}
              </span>
            </RadioCard>
          ))}
        </RadioGroup>
      </fieldset>
      {rejection?.message && (
        <Alert tone="danger" data-testid="approve-refused">
          <strong>Not booked: </strong>
          {rejection.message}
          {rejection.alternatives.length > 0 ? ' Pick one of the alternatives above and approve again.' : ' Choose another time or decline.'}
        </Alert>
      )}
      <div className="flex flex-wrap gap-2">
        <Button onClick={submit} disabled={!choice || approve.isPending}>
          <Check aria-hidden />
          {approve.isPending ? 'Approving…' : 'Approve'}
        </Button>
        <DeclineDialog proposalId={proposalId} />
      </div>
    </div>
  );
}

function DeclineDialog({ proposalId }: { proposalId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const form = useZodForm(DeclineProposalInput, { defaultValues: { proposal_id: proposalId, reason: '' } });
  const decline = useMutation(
    trpc.proposals.decline.mutationOptions({
      onSuccess: () => {
        setOpen(false);
        router.refresh();
      },
      onError: (err) => form.setError('root', { message: err.message }),
    }),
  );
  const submit = form.handleSubmit((values) => decline.mutate({ proposal_id: proposalId, reason: values.reason?.trim() || undefined }));
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="secondary">
          <X aria-hidden />
          Decline
        </Button>
      </DialogTrigger>
      <DialogContent title="Decline this request?" description="The requester is told it was declined, with your reason if you give one.">
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          <Field label="Reason (optional)" error={form.formState.errors.reason?.message}>
            <Textarea rows={3} {...form.register('reason')} />
          </Field>
          {form.formState.errors.root && <Alert tone="danger">{form.formState.errors.root.message}</Alert>}
          <div className="flex justify-end gap-2">
            <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={decline.isPending}>
              {decline.isPending ? 'Declining…' : 'Decline request'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
