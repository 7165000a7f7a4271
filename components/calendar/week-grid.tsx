import Link from 'next/link';
import { AlertTriangle, Lock } from 'lucide-react';
import type { CandidateOverlay, WeekEvent, WeekView } from '@/server/domain/calendar';
import { cn } from '@/components/ui/cn';
import { classColour, formatDay, formatHours, formatRange, minutesIntoDay } from './format';
import { placeInLanes } from './lanes';

const HOUR_PX = 44;
const DEFAULT_FIRST = 8 * 60;
const DEFAULT_LAST = 18 * 60;

type Props = {
  week: WeekView;
  /** A proposal's candidate times, drawn over the week (numbered as in the list beside it). */
  candidates?: CandidateOverlay[];
  /** Where a click on a booking goes (its details); none: blocks are not links. */
  eventHref?: (id: string) => string;
  selectedEventId?: string;
};

type Piece = { top: number; bottom: number };

/**
 * The week as a time grid, rendered on the server: one column per owner-local
 * day, off-hours shaded, hard blocks hatched, bookings and holds coloured by
 * meeting class (sacred ones carry a lock), cancelled and preempted ones
 * faded and struck through, a proposal's candidates outlined on top (red when
 * they run into something). Scrolls sideways on a narrow screen.
 */
export function WeekGrid({ week, candidates = [], eventHref, selectedEventId }: Props) {
  const tz = week.owner.time_zone;
  const minutes = (iso: string, day: WeekView['days'][number]) => minutesIntoDay(iso, day.start, tz);
  const clipTo = (s: string, e: string, day: WeekView['days'][number]): Piece | null => {
    if (Date.parse(e) <= Date.parse(day.start) || Date.parse(s) >= Date.parse(day.end)) return null;
    const top = Date.parse(s) <= Date.parse(day.start) ? 0 : minutes(s, day);
    const bottom = Date.parse(e) >= Date.parse(day.end) ? 1440 : minutes(e, day);
    return bottom > top ? { top, bottom } : null;
  };

  // Visible hours: the usual day, widened to whatever the week holds.
  let first = DEFAULT_FIRST;
  let last = DEFAULT_LAST;
  for (const day of week.days) {
    for (const span of [...day.working, ...week.events, ...candidates]) {
      const p = clipTo(span.start, span.end, day);
      if (p) {
        first = Math.min(first, Math.floor(p.top / 60) * 60);
        last = Math.max(last, Math.ceil(p.bottom / 60) * 60);
      }
    }
  }
  const height = ((last - first) / 60) * HOUR_PX;
  const y = (m: number) => ((Math.max(first, Math.min(last, m)) - first) / 60) * HOUR_PX;
  const hours = Array.from({ length: (last - first) / 60 }, (_, i) => first + i * 60);
  const limitMinutes = week.owner.max_daily_meeting_hours != null ? week.owner.max_daily_meeting_hours * 60 : null;

  return (
    <div
      className="overflow-x-auto rounded-lg border border-line bg-surface"
      role="region"
      aria-label={`Week of ${formatDay(week.days[0].start, tz)}, times in ${tz}`}
      tabIndex={0}
    >
      <div className="grid min-w-[760px]" style={{ gridTemplateColumns: '3.25rem repeat(7, minmax(0, 1fr))' }}>
        <div className="sticky left-0 z-20 border-b border-line bg-surface" />
        {week.days.map((day) => {
          const over = limitMinutes != null && day.booked_minutes > limitMinutes;
          return (
            <div key={day.date} className="border-b border-l border-line px-2 py-2" data-testid={`day-${day.date}`}>
              <div className={cn('text-sm font-semibold', day.date === week.today && 'text-accent')}>
                {formatDay(day.start, tz)}
                {day.date === week.today && <span className="ml-1 rounded-sm bg-accent px-1 text-[10px] uppercase text-accent-fg">today</span>}
              </div>
              <div className={cn('text-xs', over ? 'font-semibold text-danger' : 'text-muted')}>
                {limitMinutes != null ? `${formatHours(day.booked_minutes).replace(' h', '')} / ${formatHours(limitMinutes)} booked` : `${formatHours(day.booked_minutes)} booked`}
              </div>
              {limitMinutes != null && (
                <div className="mt-1 h-1 overflow-hidden rounded-full bg-surface-2" aria-hidden>
                  <div className={cn('h-full', over ? 'bg-danger' : 'bg-accent')} style={{ width: `${Math.min(100, (day.booked_minutes / limitMinutes) * 100)}%` }} />
                </div>
              )}
            </div>
          );
        })}

        <div className="sticky left-0 z-20 bg-surface" style={{ height }} aria-hidden>
          {hours.map((h) => (
            <div key={h} className="relative text-right text-[11px] text-muted" style={{ height: HOUR_PX }}>
              <span className="absolute -top-2 right-1.5">{String(h / 60).padStart(2, '0')}:00</span>
            </div>
          ))}
        </div>

        {week.days.map((day) => {
          const events = placeInLanes(
            week.events.flatMap((e) => {
              const p = clipTo(e.start, e.end, day);
              return p ? [{ ...p, event: e }] : [];
            }),
          );
          return (
            <div key={day.date} className="relative border-l border-line" style={{ height, background: 'var(--off-hours)' }}>
              {day.working.map((w) => {
                const p = clipTo(w.start, w.end, day);
                return p && <div key={w.start} className="absolute inset-x-0 bg-surface" style={{ top: y(p.top), height: y(p.bottom) - y(p.top) }} aria-hidden />;
              })}
              {hours.map((h) => (
                <div key={h} className="absolute inset-x-0 border-t border-line/70" style={{ top: y(h) }} aria-hidden />
              ))}
              {day.blocks.map((b) => {
                const p = clipTo(b.start, b.end, day);
                return (
                  p && (
                    <div
                      key={b.start}
                      className="absolute inset-x-0 flex items-start justify-end px-1 text-[10px] text-muted"
                      style={{ top: y(p.top), height: y(p.bottom) - y(p.top), background: 'var(--blocked)' }}
                      title={`Blocked ${formatRange(b.start, b.end, tz)}`}
                    >
                      <span aria-hidden>Blocked</span>
                    </div>
                  )
                );
              })}
              {events.map((pl) => (
                <EventBlock
                  key={pl.event.id}
                  event={pl.event}
                  tz={tz}
                  style={{
                    top: y(pl.top),
                    height: Math.max(18, y(pl.bottom) - y(pl.top) - 1),
                    left: `calc(${(pl.lane / pl.lanes) * 100}% + 2px)`,
                    width: `calc(${100 / pl.lanes}% - 4px)`,
                  }}
                  href={eventHref?.(pl.event.id)}
                  selected={pl.event.id === selectedEventId}
                />
              ))}
              {placeInLanes(
                candidates.flatMap((c, i) => {
                  const p = clipTo(c.start, c.end, day);
                  return p ? [{ ...p, c, n: i + 1 }] : [];
                }),
              ).map(({ c, n, top, bottom, lane, lanes }) => {
                const conflict = c.conflicts.length > 0 || c.in_hard_block || c.outside_working_hours;
                return (
                  <div
                    key={`cand-${n}`}
                    data-testid={`candidate-overlay-${n}`}
                    data-conflict={conflict ? 'true' : 'false'}
                    className={cn(
                      'pointer-events-none absolute z-10 rounded-md border-2 border-dashed text-[11px] font-semibold',
                      conflict ? 'border-danger bg-danger/10 text-danger' : 'border-accent bg-accent/15 text-accent',
                    )}
                    style={{
                      top: y(top),
                      height: Math.max(18, y(bottom) - y(top)),
                      // The right half of the day: the bookings underneath stay readable on the left.
                      left: `calc(${45 + (lane / lanes) * 55}% + 1px)`,
                      width: `calc(${55 / lanes}% - 2px)`,
                    }}
                    aria-hidden
                  >
                    <span className="m-0.5 inline-flex items-center gap-0.5 rounded-sm bg-surface px-0.5">
                      {conflict && <AlertTriangle className="size-3" />}
                      {n}
                    </span>
                  </div>
                );
              })}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function EventBlock({ event, tz, style, href, selected }: { event: WeekEvent; tz: string; style: React.CSSProperties; href?: string; selected: boolean }) {
  const ended = event.status === 'cancelled' || event.status === 'preempted';
  const title = event.title ?? (event.kind === 'hold' ? 'Hold' : 'Booking');
  // The visible text is the accessible name; what colour and icons say is added for screen readers.
  const body = (
    <>
      <span className="flex items-center gap-1 font-semibold">
        {event.sacred && <Lock className="size-3 shrink-0" aria-hidden />}
        <span className={cn('truncate', ended && 'line-through')}>{title}</span>
      </span>
      <span className="block truncate">
        <span className="sr-only">, </span>
        {formatRange(event.start, event.end, tz)}
        {event.meeting_class && ` · ${event.meeting_class}`}
        {event.kind === 'hold' && ' · hold'}
        {ended && ` · ${event.status}`}
        {event.sacred && <span className="sr-only"> · sacred</span>}
      </span>
    </>
  );
  const className = cn(
    classColour(event.meeting_class),
    'absolute overflow-hidden rounded-md border-l-4 px-1.5 py-0.5 text-[11px] leading-tight no-underline',
    event.kind === 'hold' || ended ? 'border border-dashed' : '',
    ended ? 'text-muted' : 'text-fg',
    selected ? 'ring-2 ring-focus' : '',
  );
  const styled = { ...style, background: ended ? 'var(--surface-2)' : 'var(--mc-soft)', borderColor: 'var(--mc)', zIndex: ended ? 1 : 2 };
  return href ? (
    <Link href={href} scroll={false} className={className} style={styled} data-testid={`event-${event.id}`}>
      {body}
    </Link>
  ) : (
    <div className={className} style={styled} data-testid={`event-${event.id}`}>
      {body}
    </div>
  );
}
