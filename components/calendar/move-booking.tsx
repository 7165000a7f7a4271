'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { AlertTriangle, CalendarClock } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import type { AppRouter } from '@/server/trpc/router';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Input, Textarea } from '@/components/ui';
import { formatSpan, zonedWallTimeToIso } from './format';

type Displaced = { id: string; kind: 'booking' | 'hold'; title: string | null; start: string; end: string; meeting_class: string | null };
type Alternative = { start: string; end: string };

/** "2026-11-30T10:00" for an instant in `timeZone` (the datetime-local input's value). */
function wallTime(iso: string, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso)).map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/**
 * "Move" in a booking's details (calendar.move; docs/dashboard.md "Calendar"): the owner picks a
 * new start in their zone, the length stays. The same arbitration as any booking decides; a
 * refusal says why and offers the alternatives; a time that would move meetings aside lists
 * them and asks first, as the review page does for an approval.
 */
export function MoveBooking({ bookingId, title, start, end, timeZone }: { bookingId: string; title: string; start: string; end: string; timeZone: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const minutes = (Date.parse(end) - Date.parse(start)) / 60_000;
  const [open, setOpen] = useState(false);
  const [local, setLocal] = useState(wallTime(start, timeZone));
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<{ message: string; alternatives: Alternative[] } | null>(null);
  const [confirming, setConfirming] = useState<{ start: string; end: string; displaced: Displaced[] } | null>(null);
  const move = useMutation(trpc.calendar.move.mutationOptions());

  const send = async (at: { start: string; end: string }, confirm?: string[]) => {
    setProblem(null);
    try {
      await move.mutateAsync({ booking_id: bookingId, start: at.start, end: at.end, ...(reason.trim() ? { reason: reason.trim() } : {}), ...(confirm ? { confirm_preemption: confirm } : {}) });
      setOpen(false);
      setConfirming(null);
      router.refresh();
    } catch (err) {
      const domain = err instanceof TRPCClientError ? (err as TRPCClientError<AppRouter>).data?.domain : null;
      if (domain?.code === 'PREEMPTION_NOT_CONFIRMED') {
        setConfirming({ start: at.start, end: at.end, displaced: (domain.extra?.displaced as Displaced[] | undefined) ?? [] });
        return;
      }
      setConfirming(null);
      const alternatives = ((domain?.extra?.alternatives as Alternative[] | undefined) ?? []).slice(0, 5);
      setProblem({ message: (domain?.message ?? (err as Error).message).split(';')[0].replace(/\.?$/, '.'), alternatives });
    }
  };
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const s = zonedWallTimeToIso(local, timeZone);
    if (!s) return setProblem({ message: 'Choose the day and time to move it to.', alternatives: [] });
    void send({ start: s, end: new Date(Date.parse(s) + minutes * 60_000).toISOString() });
  };

  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="secondary" size="sm">
          <CalendarClock aria-hidden /> Move
        </Button>
      </DialogTrigger>
      <DialogContent title={`Move “${title}”`} description={`Same booking, same length (${minutes} minutes). Its agent and attendees are told the new time.`}>
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          <Field label={`New start (${timeZone})`}>
            <Input type="datetime-local" value={local} onChange={(e) => setLocal(e.target.value)} required />
          </Field>
          <Field label="Reason (optional)" hint="Sent to the attendees with the new time.">
            <Textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
          </Field>
          {problem && (
            <Alert tone="danger">
              {problem.message}
              {problem.alternatives.length > 0 && (
                <span className="mt-2 flex flex-wrap gap-2">
                  {problem.alternatives.map((a) => (
                    <Button key={a.start} type="button" size="sm" variant="secondary" onClick={() => void send(a)}>
                      {formatSpan(a.start, a.end, timeZone)}
                    </Button>
                  ))}
                </span>
              )}
            </Alert>
          )}
          {confirming ? (
            <section aria-labelledby="move-preempt-heading" data-testid="move-preempt-confirm" className="flex flex-col gap-3 rounded-md border border-danger bg-danger-soft p-3 text-sm">
              <h3 id="move-preempt-heading" className="font-semibold text-danger">
                <AlertTriangle className="mr-1 inline size-4 align-[-0.15em]" aria-hidden />
                Moving it there cancels {confirming.displaced.length === 1 ? 'this meeting' : `these ${confirming.displaced.length} meetings`}
              </h3>
              <ul className="flex flex-col gap-2">
                {confirming.displaced.map((d) => (
                  <li key={d.id} className="rounded border border-line bg-surface p-2 text-fg">
                    <p className="font-medium">{d.title ?? (d.kind === 'hold' ? 'A hold' : 'A booking')}</p>
                    <p>
                      {formatSpan(d.start, d.end, timeZone)} · {d.meeting_class ?? 'no class'}
                    </p>
                  </li>
                ))}
              </ul>
              <div className="flex flex-wrap gap-2">
                <Button type="button" variant="danger" disabled={move.isPending} onClick={() => void send(confirming, confirming.displaced.map((d) => d.id))}>
                  {move.isPending ? 'Moving…' : 'Cancel and move'}
                </Button>
                <Button type="button" variant="secondary" onClick={() => setConfirming(null)}>
                  Choose another time
                </Button>
              </div>
            </section>
          ) : (
            <div className="flex flex-wrap justify-end gap-2">
              <Button type="button" variant="ghost" onClick={() => setOpen(false)}>
                Keep the time
              </Button>
              <Button type="submit" disabled={move.isPending}>
                {move.isPending ? 'Moving…' : 'Move booking'}
              </Button>
            </div>
          )}
        </form>
      </DialogContent>
    </Dialog>
  );
}
