'use client';

import { useEffect, useId, useRef } from 'react';
import { AlertTriangle } from 'lucide-react';
import { Button } from '@/components/ui';
import { formatSlot } from '@/components/ui/time-format';

/** A meeting the server would move aside (calendar.move's PREEMPTION_NOT_CONFIRMED `displaced`). */
export type Displaced = { id: string; kind: 'booking' | 'hold'; title: string | null; start: string; end: string; meeting_class: string | null };

/**
 * The warning before a move bumps lower-priority meetings: what would be cancelled, then
 * "Cancel and move" (the owner's confirmation, `confirm_preemption`) or back out. One
 * component for the move dialog and the week's drag (docs/dashboard.md "Calendar"). When it
 * appears it scrolls itself into view and takes focus on its heading (not on the destructive
 * button), so at 1440x900 and on a phone it is never left below the fold.
 */
export function BumpWarning({
  displaced,
  timeZone,
  pending,
  onConfirm,
  onBack,
  backLabel = 'Choose another time',
}: {
  displaced: Displaced[];
  timeZone: string;
  pending: boolean;
  onConfirm: () => void;
  onBack: () => void;
  backLabel?: string;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.closest('section')?.scrollIntoView({ block: 'nearest' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section aria-labelledby={headingId} data-testid="move-preempt-confirm" className="flex scroll-my-4 flex-col gap-3 rounded-md border border-danger bg-danger-soft p-3 text-sm">
      <h3 id={headingId} ref={heading} tabIndex={-1} className="font-semibold text-danger outline-none">
        <AlertTriangle className="mr-1 inline size-4 align-[-0.15em]" aria-hidden />
        Moving it there cancels {displaced.length === 1 ? 'this meeting' : `these ${displaced.length} meetings`}
      </h3>
      <ul className="flex flex-col gap-2">
        {displaced.map((d) => (
          <li key={d.id} className="rounded border border-line bg-surface p-2 text-fg">
            <p className="font-medium">{d.title ?? (d.kind === 'hold' ? 'A hold' : 'A booking')}</p>
            <p>
              {formatSlot(d.start, d.end, timeZone)} · {d.meeting_class ?? 'no class'}
            </p>
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="danger" disabled={pending} onClick={onConfirm}>
          {pending ? 'Moving…' : 'Cancel and move'}
        </Button>
        <Button type="button" variant="secondary" onClick={onBack}>
          {backLabel}
        </Button>
      </div>
    </section>
  );
}
