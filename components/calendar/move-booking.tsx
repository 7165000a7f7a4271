'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { CalendarClock } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { firstClause, readServerError } from '@/components/ui/server-error';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Input, Textarea, Form } from '@/components/ui';
import { formatSlot, wallTime, zonedWallTimeToIso } from '@/components/ui/time-format';
import { BumpWarning, type Displaced } from './bump-warning';

type Alternative = { start: string; end: string };

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
      const refusal = readServerError(err);
      if (refusal.code === 'PREEMPTION_NOT_CONFIRMED') {
        setConfirming({ start: at.start, end: at.end, displaced: (refusal.extra.displaced as Displaced[] | undefined) ?? [] });
        return;
      }
      setConfirming(null);
      const alternatives = ((refusal.extra.alternatives as Alternative[] | undefined) ?? []).slice(0, 5);
      setProblem({ message: firstClause(refusal.message), alternatives });
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
        <Form onSubmit={submit} noValidate className="flex flex-col gap-4">
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
                      {formatSlot(a.start, a.end, timeZone)}
                    </Button>
                  ))}
                </span>
              )}
            </Alert>
          )}
          {confirming ? (
            <BumpWarning
              displaced={confirming.displaced}
              timeZone={timeZone}
              pending={move.isPending}
              onConfirm={() => void send(confirming, confirming.displaced.map((d) => d.id))}
              onBack={() => setConfirming(null)}
            />
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
        </Form>
      </DialogContent>
    </Dialog>
  );
}
