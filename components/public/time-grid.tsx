'use client';

import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { CalendarX2 } from '@/components/ui/icons';
import { formatLongDay, formatViewerClock } from '@/components/ui/time-format';

export type Slot = { start: string; end: string };

/**
 * The free times, grouped by day in the requester's zone, as one keyboard stop
 * (docs/public-scheduling.md "Keyboard and screen readers"): Tab reaches the chosen time (or
 * the first), the arrow keys move between times (left and right along the list, up and down
 * to the time above or below on screen, across days), Home and End go to the first and last.
 * Enter or Space picks it. `dayHeadings` false: no heading per day (the month view names the day).
 */
export function TimeList(props: { tz: string | null; loading: boolean; failed: boolean; slots: Slot[]; selected: Slot | null; onSelect: (s: Slot) => void; link: string; dayHeadings?: boolean }) {
  const { tz, slots, selected } = props;
  const t = useTranslations('times');
  if (props.failed) return <Alert tone="danger">{t('failed')}</Alert>;
  if (props.loading || !tz) {
    return (
      <p className="text-sm text-muted" aria-busy="true">
        {t('loading')}
      </p>
    );
  }
  if (!slots.length) {
    return (
      <Alert>
        <CalendarX2 aria-hidden />
        {t.rich('none', { link: (c) => <a href={`/${props.link}#request`}>{c}</a> })}
      </Alert>
    );
  }
  return <SlotGrid slots={slots} tz={tz} selected={selected} onSelect={props.onSelect} label={t('label')} attribute="data-start" dayHeadings={props.dayHeadings} />;
}

/**
 * Times grouped by day in `tz`, one Tab stop with arrow keys (see TimeList); `attribute` names
 * the data attribute carrying each time's start (what tests and the forms read).
 */
export function SlotGrid(props: { slots: Slot[]; tz: string; selected: Slot | null; onSelect: (s: Slot) => void; label: string; attribute: 'data-start' | 'data-move-start'; dayHeadings?: boolean }) {
  const { slots, tz, selected } = props;
  const grid = useRef<HTMLDivElement>(null);
  const selectedIndex = selected ? slots.findIndex((s) => s.start === selected.start && s.end === selected.end) : -1;
  const [active, setActive] = useState(0);
  const keysId = useId();
  const t = useTranslations('times');
  const locale = useFormatLocale();
  const current = selectedIndex >= 0 ? selectedIndex : Math.min(active, slots.length - 1);
  const days: { day: string; slots: { slot: Slot; index: number }[] }[] = [];
  slots.forEach((slot, index) => {
    const day = formatLongDay(slot.start, tz, locale);
    if (days.at(-1)?.day !== day) days.push({ day, slots: [] });
    days.at(-1)!.slots.push({ slot, index });
  });

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const buttons = Array.from(grid.current?.querySelectorAll<HTMLButtonElement>('button[data-index]') ?? []);
    const from = buttons.findIndex((b) => b === document.activeElement);
    if (from < 0) return;
    const next = nextIndex(buttons, from, e.key);
    if (next === null) return;
    e.preventDefault();
    setActive(next);
    buttons[next].focus();
  };

  return (
    <div ref={grid} className="flex flex-col gap-4" role="group" aria-label={props.label} aria-describedby={keysId} onKeyDown={onKeyDown}>
      <p id={keysId} className="sr-only">
        {t('keys')}
      </p>
      {days.map(({ day, slots: daySlots }) => (
        <div key={day} role="group" aria-label={day}>
          {props.dayHeadings !== false && <h3 className="mb-2 text-sm font-semibold">{day}</h3>}
          <ul className="grid grid-cols-3 gap-2 sm:grid-cols-4">
            {daySlots.map(({ slot: s, index }) => {
              const on = index === selectedIndex;
              const time = formatViewerClock(s.start, tz, locale);
              return (
                <li key={s.start}>
                  <button
                    type="button"
                    className={buttonClasses(on ? 'primary' : 'secondary', 'md', 'w-full')}
                    aria-pressed={on}
                    aria-label={t('slot', { day, time })}
                    tabIndex={index === current ? 0 : -1}
                    {...{ [props.attribute]: s.start }}
                    data-index={index}
                    onFocus={() => setActive(index)}
                    onClick={() => props.onSelect(s)}
                  >
                    {time}
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </div>
  );
}

/** Where an arrow key (or Home/End) goes from `from`, or null for a key the grid leaves alone. */
function nextIndex(buttons: HTMLButtonElement[], from: number, key: string): number | null {
  const last = buttons.length - 1;
  switch (key) {
    case 'ArrowRight':
      return Math.min(from + 1, last);
    case 'ArrowLeft':
      return Math.max(from - 1, 0);
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'ArrowDown':
    case 'ArrowUp':
      return verticalNeighbour(buttons, from, key === 'ArrowDown' ? 1 : -1);
    default:
      return null;
  }
}

/** The time in the next row below (or above) on screen, nearest in column; stays put at the edge. */
function verticalNeighbour(buttons: HTMLButtonElement[], from: number, direction: 1 | -1): number {
  const here = buttons[from].getBoundingClientRect();
  let best: { index: number; row: number; dx: number } | null = null;
  for (let i = from + direction; i >= 0 && i < buttons.length; i += direction) {
    const r = buttons[i].getBoundingClientRect();
    const row = direction * (r.top - here.top);
    if (row <= 1) continue;
    if (best && row > best.row + 1) break;
    const dx = Math.abs(r.left - here.left);
    if (!best || dx < best.dx) best = { index: i, row, dx };
  }
  return best?.index ?? from;
}
