'use client';

import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import { buttonClasses } from '@/components/ui/button-classes';
import { cn } from '@/components/ui/cn';
import { ChevronLeft, ChevronRight } from '@/components/ui/icons';
import { formatDateLongDay, formatDayOfMonth, formatMonthYear, formatWeekdayName } from '@/components/ui/time-format';
import { addMonths, clampToMonths, keyTarget, monthWeeks, weekStart, weekdayDates } from './month-grid';

type Props = {
  /** The month shown, YYYY-MM, and the months the view may show. */
  month: string;
  firstMonth: string;
  lastMonth: string;
  /** Free times per date of the month (YYYY-MM-DD); null while loading. */
  counts: Map<string, number> | null;
  selected: string | null;
  onMonth: (month: string) => void;
  onPick: (date: string) => void;
};

/**
 * The month view (docs/public-scheduling.md "Month view"): a grid of the month's days, the days
 * with free times marked and named with their count, the others aria-disabled. One Tab stop: the
 * arrow keys move by day and week, Home and End to the week's start and end, PageUp and PageDown
 * by month (the view follows), Enter or Space picks the day.
 */
export function MonthView({ month, firstMonth, lastMonth, counts, selected, onMonth, onPick }: Props) {
  const t = useTranslations('month');
  const locale = useFormatLocale();
  const firstDay = weekStart(locale);
  const weeks = monthWeeks(month, firstDay);
  const keysId = useId();
  const grid = useRef<HTMLTableElement>(null);
  const [focusDate, setFocusDate] = useState<string | null>(null);
  const moved = useRef(false);
  const firstFree = counts && [...counts.keys()].sort()[0];
  const active = focusDate?.startsWith(month) ? focusDate : selected?.startsWith(month) ? selected : (firstFree ?? `${month}-01`);

  // After a key moved the focus, focus the new day (in the new month when the key changed it), before
  // the browser paints: the day that had focus may be gone with its month.
  useLayoutEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    grid.current?.querySelector<HTMLButtonElement>(`button[data-date="${active}"]`)?.focus();
  }, [active]);

  const onKeyDown = (e: KeyboardEvent<HTMLTableElement>) => {
    const rtl = getComputedStyle(e.currentTarget).direction === 'rtl';
    const raw = keyTarget(active, e.key, { firstDay, rtl });
    if (raw === null) return;
    e.preventDefault();
    const next = clampToMonths(raw, firstMonth, lastMonth);
    moved.current = true;
    setFocusDate(next);
    if (!next.startsWith(month)) onMonth(next.slice(0, 7));
  };

  const canEarlier = month > firstMonth;
  const canLater = month < lastMonth;
  const nav = (enabled: boolean, to: string) => ({
    'aria-disabled': !enabled,
    onClick: () => {
      if (enabled) onMonth(to);
    },
  });

  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-center justify-between gap-2">
        <button type="button" className={buttonClasses('secondary', 'icon', 'aria-disabled:cursor-not-allowed aria-disabled:opacity-50')} aria-label={t('previous')} {...nav(canEarlier, addMonths(month, -1))}>
          <ChevronLeft className="rtl:-scale-x-100" aria-hidden />
        </button>
        <p className="text-base font-semibold" aria-hidden>
          {formatMonthYear(month, locale)}
        </p>
        <button type="button" className={buttonClasses('secondary', 'icon', 'aria-disabled:cursor-not-allowed aria-disabled:opacity-50')} aria-label={t('next')} {...nav(canLater, addMonths(month, 1))}>
          <ChevronRight className="rtl:-scale-x-100" aria-hidden />
        </button>
      </div>
      <p id={keysId} className="sr-only">
        {t('keys')}
      </p>
      <table ref={grid} role="grid" className="w-full table-fixed border-separate border-spacing-1" aria-describedby={keysId} aria-busy={counts === null} onKeyDown={onKeyDown}>
        <caption className="sr-only">{formatMonthYear(month, locale)}</caption>
        <thead>
          <tr>
            {weekdayDates(firstDay).map((d) => (
              <th key={d} scope="col" abbr={formatWeekdayName(d, 'long', locale)} className="pb-1 text-center text-xs font-medium text-muted">
                {formatWeekdayName(d, 'short', locale)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week) => (
            <tr key={week.find(Boolean)}>
              {week.map((date, i) =>
                date ? (
                  <DayCell key={date} date={date} count={counts?.get(date) ?? 0} loading={counts === null} selected={date === selected} tabbable={date === active} locale={locale} onPick={onPick} onFocus={() => setFocusDate(date)} />
                ) : (
                  <td key={`blank-${i}`} role="gridcell" />
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DayCell(props: { date: string; count: number; loading: boolean; selected: boolean; tabbable: boolean; locale: string; onPick: (date: string) => void; onFocus: () => void }) {
  const { date, count, selected } = props;
  const t = useTranslations('month');
  const free = count > 0;
  const day = formatDateLongDay(date, props.locale);
  return (
    <td role="gridcell" aria-selected={selected} className="p-0">
      <button
        type="button"
        data-date={date}
        data-free={free || undefined}
        tabIndex={props.tabbable ? 0 : -1}
        aria-disabled={!free}
        aria-label={props.loading ? day : t('day', { day, count })}
        onFocus={props.onFocus}
        onClick={() => {
          if (free) props.onPick(date);
        }}
        className={cn(
          'relative flex h-11 w-full flex-col items-center justify-center rounded-md text-sm tabular-nums outline-offset-2 focus-visible:outline-2 focus-visible:outline-accent',
          selected ? 'bg-accent font-semibold text-accent-fg' : free ? 'cursor-pointer bg-accent-soft font-semibold text-fg hover:ring-1 hover:ring-accent' : 'cursor-default text-muted',
        )}
      >
        <span aria-hidden>{formatDayOfMonth(date, props.locale)}</span>
        {free && <span aria-hidden className={cn('absolute bottom-1 size-1.5 rounded-full', selected ? 'bg-accent-fg' : 'bg-accent')} />}
      </button>
    </td>
  );
}
