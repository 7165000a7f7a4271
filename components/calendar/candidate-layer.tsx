'use client';

import { useEffect, useRef } from 'react';
import { AlertTriangle } from 'lucide-react';
import { useCandidateFocus } from '@/components/ui/candidate-choice';
import { cn } from '@/components/ui/cn';

/** One proposed time's share of a day column, placed by the server (components/calendar/week-grid.tsx). */
type CandidateMark = {
  n: number;
  /** Its option key (components/proposals/options.ts). */
  key: string;
  top: number;
  height: number;
  /** "10:00–11:00" on this day. */
  time: string;
  /** What it runs into, or that it is free, in words. */
  summary: string;
  conflict: boolean;
  lane: number;
};

/** Width of one marker of the candidate rail, in px. */
const RAIL = 7;

/**
 * A day's proposed times on the review page's week (docs/dashboard.md
 * "Review"): each time is a thin marker on a rail at the column's right
 * edge, side by side when they overlap, so five candidates over one meeting
 * stay five distinct targets; only the chosen one (or the one pointed at or
 * focused, in the list or here) is drawn as a box over the day, numbered.
 * A marker names its time and what it runs into on hover (title) and to
 * assistive technology on focus (its label); the caption above the week
 * (CandidateCaption) says the same in words. Clicking a marker chooses it.
 */
export function CandidateLayer({ marks, day, lanes }: { marks: CandidateMark[]; day: string; lanes: number }) {
  const focus = useCandidateFocus();
  const shown = focus ? (focus.preview ?? focus.choice) : null;
  const active = marks.find((m) => m.key === shown);
  const anchor = useRef<HTMLDivElement>(null);
  const railWidth = lanes * RAIL + 4;

  // On a narrow screen the week scrolls sideways: bring the highlighted time's day into view (the page stays put).
  useEffect(() => {
    const column = anchor.current?.parentElement;
    const region = column?.closest<HTMLElement>('[role="region"]');
    if (!active || !column || !region || region.scrollWidth <= region.clientWidth) return;
    const left = column.getBoundingClientRect().left - region.getBoundingClientRect().left;
    if (left < 56 || left + column.offsetWidth > region.clientWidth) region.scrollLeft += left - 56; // keep the hour labels' width free
  }, [active]);

  return (
    <div ref={anchor} className="contents">
      {active && (
        <div
          data-testid="candidate-active"
          data-n={active.n}
          data-conflict={active.conflict ? 'true' : 'false'}
          className={cn(
            'pointer-events-none absolute z-10 flex flex-col items-start gap-0.5 overflow-hidden rounded-md border-2 border-dashed p-0.5 text-[11px] leading-tight font-semibold',
            active.conflict ? 'border-danger bg-danger/10 text-danger' : 'border-accent bg-accent/10 text-accent',
          )}
          // Over most of the day (the meeting it runs into shows through), clear of the rail.
          style={{ top: active.top, height: active.height, left: '22%', right: railWidth }}
          aria-hidden
        >
          <span className="inline-flex items-center gap-0.5 rounded-sm bg-surface px-1">
            {active.conflict && <AlertTriangle className="size-3" />}
            {active.n}
          </span>
          {active.height >= 34 && <span className="rounded-sm bg-surface px-1 font-medium">{active.time.split('–')[0]}</span>}
        </div>
      )}
      {marks.map((m) => {
        const label = `Option ${m.n}, ${day} ${m.time}: ${m.summary}`;
        return (
          <button
            key={m.key}
            type="button"
            data-testid={`candidate-overlay-${m.n}`}
            data-conflict={m.conflict ? 'true' : 'false'}
            aria-label={label}
            aria-pressed={focus?.choice === m.key}
            title={label}
            className={cn(
              'absolute z-20 cursor-pointer rounded-sm border p-0 focus-visible:outline-offset-1',
              m.conflict ? 'border-danger bg-danger' : 'border-accent bg-accent',
              m.key === shown ? 'opacity-100 ring-2 ring-fg' : 'opacity-60 hover:opacity-100',
            )}
            style={{ top: m.top, height: m.height, right: 2 + m.lane * RAIL, width: RAIL - 1 }}
            onPointerEnter={() => focus?.setPreview(m.key)}
            onPointerLeave={() => focus?.setPreview(null)}
            onFocus={() => focus?.setPreview(m.key)}
            onBlur={() => focus?.setPreview(null)}
            onClick={() => focus?.setChoice(m.key)}
          />
        );
      })}
    </div>
  );
}

/** The option a caption describes (the page prepares its words). */
type CandidateCaptionItem = { key: string; n: number; label: string; summary: string; conflict: boolean };

/**
 * The line above the review page's week: which proposed time is highlighted
 * there and what it runs into, in words, whatever the screen's width.
 */
export function CandidateCaption({ items }: { items: CandidateCaptionItem[] }) {
  const focus = useCandidateFocus();
  const shown = focus ? (focus.preview ?? focus.choice) : null;
  const item = items.find((i) => i.key === shown);
  return (
    <p className="min-h-[2.75rem] rounded-md border border-line bg-surface px-3 py-2 text-sm" data-testid="candidate-caption">
      {item ? (
        <>
          <span className="font-semibold">
            Option {item.n} of {items.length}: {item.label}
          </span>
          <span className={cn('ml-2 inline-flex items-center gap-1', item.conflict ? 'font-medium text-danger' : 'text-ok')}>
            {item.conflict && <AlertTriangle className="size-3.5" aria-hidden />}
            {item.summary}
          </span>
        </>
      ) : (
        <span className="text-muted">Point at or focus a proposed time to see it on the week.</span>
      )}
    </p>
  );
}
