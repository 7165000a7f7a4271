'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AlertTriangle, Check, Search, X } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { ApprovalTimesQuery, DeclineProposalInput } from '@/server/trpc/schemas';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Input, RadioCard, RadioGroup, Select, Textarea, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { firstClause, readServerError } from '@/components/ui/server-error';
import { formatSlot, zonedWallTimeToIso } from '@/components/ui/time-format';
import { CUSTOM_CHOICE as CUSTOM, initialChoice, optionKey, optionLines, type Displaced, type ReviewOption } from './options';
import { useCandidateChoice } from '@/components/ui/candidate-choice';

export type { Displaced, ReviewOption } from './options';

type Rejection = { message: string; reason?: string; alternatives: ReviewOption[] };

/** A free-text request names no class and maybe no time: the owner chooses both (proposals.approvalTimes finds free ones). */
type FreeTextChoice = { classes: { name: string; priority: number }[]; durationMinutes: number };

/** The free-text choice, validated with the procedure's own rules (ApprovalTimesQuery) plus what approving needs. */
const FreeTextForm = ApprovalTimesQuery.pick({ duration_minutes: true })
  .required()
  .extend({ meeting_class: z.string().min(1, 'Choose a meeting class'), start_local: z.string() });

/**
 * Approve at a chosen time (proposals.approve: arbitration runs on the
 * server) or decline with an optional reason (proposals.decline). A refusal
 * shows arbitration's reason and its alternatives as further options. For a
 * free-text request (`freeText`), the owner also picks the meeting class and
 * the length, and either a free time found inside the requested window
 * (proposals.approvalTimes) or a start of their own.
 */
export function ReviewActions({ proposalId, options, timeZone, freeText }: { proposalId: string; options: ReviewOption[]; timeZone: string; freeText?: FreeTextChoice }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  // The first time that moves nothing aside is the default (docs/dashboard.md "Review"); the week highlights the same one.
  const { choice, setChoice, setPreview } = useCandidateChoice(initialChoice(options, !!freeText));
  const [rejection, setRejection] = useState<Rejection>();
  // Approving at the chosen time would cancel these meetings: asked once more, sent with their ids.
  const [confirming, setConfirming] = useState<{ start: string; end: string; meetingClass?: string; displaced: Displaced[] } | null>(null);
  const [found, setFound] = useState<{ options: ReviewOption[]; where: string } | null>(null);
  const form = useZodForm(FreeTextForm, { defaultValues: { meeting_class: '', duration_minutes: freeText?.durationMinutes ?? 30, start_local: '' } });
  const approve = useMutation(
    trpc.proposals.approve.mutationOptions({
      onSuccess: () => router.refresh(),
      onError: (err, vars) => {
        const refusal = readServerError(err);
        if (refusal.code === 'PREEMPTION_NOT_CONFIRMED' && vars.start && vars.end) {
          // The time started to collide since the page was drawn (or was not checked): ask with what it would cancel.
          setConfirming({ start: vars.start, end: vars.end, meetingClass: vars.meeting_class, displaced: (refusal.extra.displaced as Displaced[] | undefined) ?? [] });
          return;
        }
        const fields = refusal.fields;
        if (freeText && fields.length) {
          // A field the domain names (meeting_class, start, end) goes under its control.
          for (const f of fields) form.setError(f.path === 'meeting_class' ? 'meeting_class' : 'start_local', { type: 'server', message: f.message });
          return;
        }
        const alts = ((refusal.extra.alternatives as { start: string; end: string; reason_code?: string }[] | undefined) ?? []).map((a) => ({
          start: a.start,
          end: a.end,
          label: formatSlot(a.start, a.end, timeZone),
          notes: [],
        }));
        // The first clause says why; the rest of the API's message speaks of the response's fields.
        const why = firstClause(refusal.message);
        setRejection({ message: why, reason: refusal.reason, alternatives: alts });
        if (alts[0]) setChoice(optionKey(alts[0]));
      },
    }),
  );
  const all = [...options, ...(found?.options ?? []), ...(rejection?.alternatives ?? [])];
  const send = (start: string | undefined, end: string | undefined, meetingClass?: string) => {
    setRejection((r) => (r ? { ...r, message: '' } : r));
    const known = all.find((o) => o.start === start && o.end === end)?.displaced;
    if (start && end && known?.length) return setConfirming({ start, end, meetingClass, displaced: known });
    setConfirming(null);
    approve.mutate({ proposal_id: proposalId, start, end, ...(meetingClass ? { meeting_class: meetingClass } : {}) });
  };
  const confirmAndSend = () => {
    if (!confirming) return;
    approve.mutate({
      proposal_id: proposalId,
      start: confirming.start,
      end: confirming.end,
      ...(confirming.meetingClass ? { meeting_class: confirming.meetingClass } : {}),
      confirm_preemption: confirming.displaced.map((d) => d.id),
    });
  };
  const submit = freeText
    ? form.handleSubmit((v) => {
        if (choice === CUSTOM) {
          const start = zonedWallTimeToIso(v.start_local, timeZone);
          if (!start) return form.setError('start_local', { message: 'Choose the day and time to book' });
          send(start, new Date(new Date(start).getTime() + v.duration_minutes * 60_000).toISOString(), v.meeting_class);
        } else {
          const [start, end] = choice.split('|');
          send(start, end, v.meeting_class);
        }
      })
    : () => {
        const [start, end] = choice.split('|');
        send(start, end);
      };
  const findTimes = form.handleSubmit(async (v) => {
    try {
      const r = await queryClient.fetchQuery(trpc.proposals.approvalTimes.queryOptions({ proposal_id: proposalId, meeting_class: v.meeting_class, duration_minutes: v.duration_minutes }));
      const opts = r.slots.map((t) => ({ start: t.start, end: t.end, label: formatSlot(t.start, t.end, timeZone), notes: t.preempts ? ['moves a lower-priority meeting'] : [] }));
      setFound({ options: opts, where: r.from_requested_window ? 'inside the requested window' : 'in the coming days' });
      if (opts[0]) setChoice(optionKey(opts[0]));
    } catch (err) {
      form.setError('root', { message: readServerError(err).message });
    }
  });
  const radios = [...all.map(optionKey), ...(freeText ? [CUSTOM] : [])];

  return (
    <div className="flex flex-col gap-4">
      {freeText && (
        <fieldset className="flex flex-col gap-3" aria-describedby="free-text-help">
          <legend className="mb-1 text-sm font-semibold">Book this request as</legend>
          <p id="free-text-help" className="text-xs text-muted">
            A request in the requester&apos;s own words: choose the meeting class and the length, then a free time or a start of your own.
          </p>
          <Field label="Meeting class" error={form.formState.errors.meeting_class?.message}>
            <Select {...form.register('meeting_class')}>
              <option value="">Choose a class</option>
              {freeText.classes.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} (priority {c.priority})
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Length (minutes)" error={form.formState.errors.duration_minutes?.message}>
            <Input type="number" min={5} max={480} step={5} {...form.register('duration_minutes', { valueAsNumber: true })} />
          </Field>
          <div className="flex flex-col gap-1">
            <Button type="button" variant="secondary" onClick={findTimes} className="self-start">
              <Search aria-hidden /> Find free times
            </Button>
            {found && (
              <p className="text-xs text-muted" role="status">
                {found.options.length ? `${found.options.length} free times ${found.where}.` : `No free time ${found.where} at this length: try another length or a start of your own.`}
              </p>
            )}
            {form.formState.errors.root && <Alert tone="danger">{form.formState.errors.root.message}</Alert>}
          </div>
        </fieldset>
      )}
      {radios.length === 0 && <p className="text-sm text-muted">This request names no time to approve at. Contact the requester, or decline it.</p>}
      <fieldset className={radios.length ? 'flex flex-col gap-2' : 'hidden'}>
        <legend className="mb-2 text-sm font-semibold">Approve at</legend>
        <RadioGroup
          value={choice}
          onValueChange={(v) => {
            setChoice(v);
            setConfirming(null);
          }}
          aria-label="Time to approve at"
        >
          {all.map((o, i) => (
            <RadioCard
              key={optionKey(o)}
              value={optionKey(o)}
              data-testid={`option-${i + 1}`}
              // Pointing at or focusing a time shows it on the week (components/calendar/candidate-layer.tsx).
              onPointerEnter={() => setPreview(optionKey(o))}
              onPointerLeave={() => setPreview(null)}
              onFocus={() => setPreview(optionKey(o))}
              onBlur={() => setPreview(null)}
            >
              <span className="flex flex-col">
                <span className="font-medium">
                  {i < options.length ? `${i + 1}. ` : i < options.length + (found?.options.length ?? 0) ? 'Free: ' : 'Alternative: '}
                  {o.label}
                </span>
                {optionLines(o, i < options.length).map((l) => (
                  <span key={l.text} className={l.danger ? 'flex items-center gap-1 text-xs font-medium text-danger' : 'text-xs text-ok'}>
                    {l.danger && <AlertTriangle className="size-3" aria-hidden />} {l.text}
                  </span>
                ))}
              </span>
            </RadioCard>
          ))}
          {freeText && (
            <RadioCard value={CUSTOM} data-testid="option-custom">
              <span className="font-medium">A start of my own (below)</span>
            </RadioCard>
          )}
        </RadioGroup>
        {freeText && choice === CUSTOM && (
          <Field label={`Start (${timeZone})`} error={form.formState.errors.start_local?.message}>
            <Input type="datetime-local" {...form.register('start_local')} />
          </Field>
        )}
      </fieldset>
      {rejection?.message && (
        <Alert tone="danger" data-testid="approve-refused">
          <strong>Not booked: </strong>
          {rejection.message}
          {rejection.alternatives.length > 0 ? ' Pick one of the alternatives above and approve again.' : ' Choose another time or decline.'}
        </Alert>
      )}
      {confirming ? (
        <PreemptionConfirm
          displaced={confirming.displaced}
          timeZone={timeZone}
          pending={approve.isPending}
          onConfirm={confirmAndSend}
          onCancel={() => setConfirming(null)}
        />
      ) : (
        <div className="flex flex-wrap gap-2">
          <Button onClick={submit} disabled={!choice || approve.isPending}>
            <Check aria-hidden />
            {approve.isPending ? 'Approving…' : 'Approve'}
          </Button>
          <DeclineDialog proposalId={proposalId} />
        </div>
      )}
    </div>
  );
}

/** Approving here cancels other meetings: say exactly which (title, time, attendees, class) and ask. */
function PreemptionConfirm({ displaced, timeZone, pending, onConfirm, onCancel }: { displaced: Displaced[]; timeZone: string; pending: boolean; onConfirm: () => void; onCancel: () => void }) {
  return (
    <section
      aria-labelledby="preempt-heading"
      data-testid="preempt-confirm"
      className="flex flex-col gap-3 rounded-md border border-danger bg-danger-soft p-3 text-sm"
      ref={(el) => el?.querySelector<HTMLElement>('h3')?.focus()}
    >
      <h3 id="preempt-heading" tabIndex={-1} className="font-semibold text-danger outline-none">
        <AlertTriangle className="mr-1 inline size-4 align-[-0.15em]" aria-hidden />
        Approving at this time cancels {displaced.length === 1 ? 'this meeting' : `these ${displaced.length} meetings`}
      </h3>
      <ul className="flex flex-col gap-2">
        {displaced.map((d) => (
          <li key={d.id} className="rounded border border-line bg-surface p-2 text-fg">
            <p className="font-medium">{d.title ?? (d.kind === 'hold' ? 'A hold' : 'A booking')}</p>
            <p>{formatSlot(d.start, d.end, timeZone)}</p>
            <p className="text-muted">
              Class: {d.meeting_class ?? 'none'} · {d.attendees.length ? `Attendees: ${d.attendees.map((a) => (a.name ? `${a.name} <${a.email}>` : a.email)).join(', ')}` : 'No attendees'}
            </p>
          </li>
        ))}
      </ul>
      <p className="text-fg">Its agent and attendees are told it was cancelled, and why.</p>
      <div className="flex flex-wrap gap-2">
        <Button variant="danger" onClick={onConfirm} disabled={pending}>
          {pending ? 'Approving…' : displaced.length === 1 ? 'Cancel it and approve' : 'Cancel them and approve'}
        </Button>
        <Button variant="secondary" onClick={onCancel}>
          Choose another time
        </Button>
      </div>
    </section>
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
        <Form onSubmit={submit} noValidate className="flex flex-col gap-4">
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
        </Form>
      </DialogContent>
    </Dialog>
  );
}
