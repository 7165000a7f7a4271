import type { CandidateOverlay, WeekEvent, WeekView } from '@/server/domain/weekView';
import { cn } from '@/components/ui/cn';
import { dayClock, formatClockSpan, formatWeekday } from '@/components/ui/time-format';
import { classColour, formatHours } from '@/components/calendar/display';
import { placeInLanes } from './lanes';
import { SoftLinks } from './soft-links';
import { DayEvents, type PlacedEvent } from './day-events';
import { CandidateLayer } from './candidate-layer';
import { DayDraft, WeekDrag } from './week-drag';

// An hour is 60 px (a minute a pixel): a 30-minute block has room for its title and its time.
const HOUR_PX = 60;
const DEFAULT_FIRST = 8 * 60;
const DEFAULT_LAST = 18 * 60;

type Props = {
  week: WeekView;
  /** A proposal's candidate times, drawn over the week (numbered as in the list beside it), with their option key and what each runs into in words. */
  candidates?: Candidate[];
  /** Where a click on a booking goes (its details): this followed by the booking's id; none: blocks are not links. */
  eventLinkBase?: string;
  selectedEventId?: string;
  /** The owner's own calendar: confirmed bookings can be dragged, resized and moved by keyboard (WeekDrag). */
  movable?: boolean;
};

type Piece = { top: number; bottom: number };
type Candidate = CandidateOverlay & { key?: string; summary?: string };
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
type Timed = { start: string; end: string; s: number; e: number };

/**
 * The week as a time grid, rendered on the server: one column per owner-local
 * day, off-hours shaded, hard blocks hatched, bookings and holds coloured by
 * meeting class (sacred ones carry a lock, a group's a people icon and "with" its
 * other hosts, a series' occurrence a repeat icon), cancelled and preempted ones
 * faded and struck through, a proposal's candidates as markers on a rail at
 * each day's right edge with the chosen one outlined over the day (red when
 * they run into something; components/calendar/candidate-layer.tsx). Scrolls sideways on a narrow screen.
 *
 * Kept lean for a week of hundreds of events
 * (docs/benchmarks/history/2026-11-25-browser-pages.md): instants are parsed once, a day's wall clock is
 * arithmetic unless the day has a DST change, the block's look is one CSS
 * class (globals.css .week-event), a block is a plain link that
 * SoftLinks navigates client-side, not a next/link each, and the blocks
 * travel to the browser as compact rows (DayEvents).
 */
export function WeekGrid({ week, candidates = [], eventLinkBase, selectedEventId, movable = false }: Props) {
  const tz = week.owner.time_zone;
  const timed = <T extends { start: string; end: string }>(list: T[]): (T & Timed)[] => list.map((x) => ({ ...x, s: Date.parse(x.start), e: Date.parse(x.end) }));
  const events = timed(week.events);
  const cands = timed(candidates).map((c, i) => ({ ...c, n: i + 1 }));
  // Each day's share of every span, in wall-clock minutes of that day, and its "10:00–11:30" label.
  const days = week.days.map((day) => {
    const from = Date.parse(day.start);
    const to = Date.parse(day.end);
    const clock = dayClock(day.start, day.end, tz);
    // Inside a 24-hour day the label is the wall clock already placed; else (a DST day, a span crossing midnight) Intl's.
    const plain = to - from === 86_400_000;
    // A plain loop: a week of hundreds of events is clipped against each of its seven days.
    const clip = <T extends Timed>(list: T[]): (T & Piece & { label: string })[] => {
      const out: (T & Piece & { label: string })[] = [];
      for (const x of list) {
        if (x.e <= from || x.s >= to) continue;
        const top = x.s <= from ? 0 : clock(x.s);
        const bottom = x.e >= to ? 1440 : clock(x.e);
        if (bottom <= top) continue;
        const label = plain && x.s >= from && x.e <= to ? `${hhmm(top)}–${hhmm(bottom)}` : formatClockSpan(x.start, x.end, tz);
        out.push({ ...x, top, bottom, label });
      }
      return out;
    };
    return { day, working: clip(timed(day.working)), blocks: clip(timed(day.blocks)), events: clip(events), cands: clip(cands) };
  });

  // Visible hours: the usual day, widened to whatever the week holds.
  let first = DEFAULT_FIRST;
  let last = DEFAULT_LAST;
  for (const d of days) {
    for (const p of [...d.working, ...d.events, ...d.cands]) {
      first = Math.min(first, Math.floor(p.top / 60) * 60);
      last = Math.max(last, Math.ceil(p.bottom / 60) * 60);
    }
  }
  const height = ((last - first) / 60) * HOUR_PX;
  const y = (m: number) => ((Math.max(first, Math.min(last, m)) - first) / 60) * HOUR_PX;
  const hours = Array.from({ length: (last - first) / 60 }, (_, i) => first + i * 60);
  const limitMinutes = week.owner.max_daily_meeting_hours != null ? week.owner.max_daily_meeting_hours * 60 : null;

  const grid = (
    <div className={cn('grid', movable ? 'min-w-[62rem]' : 'min-w-[760px]')} style={{ gridTemplateColumns: '3.25rem repeat(7, minmax(0, 1fr))' }}>
      <div className="sticky left-0 z-20 border-b border-line bg-surface" />
      {week.days.map((day) => {
        const over = limitMinutes != null && day.booked_minutes > limitMinutes;
        return (
          <div key={day.date} className="border-b border-l border-line px-2 py-2" data-testid={`day-${day.date}`}>
            <div className={cn('text-sm font-semibold', day.date === week.today && 'text-accent')}>
              {formatWeekday(day.start, tz)}
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

      {days.map(({ day, working, blocks, events: dayEvents, cands: dayCands }) => (
        <div key={day.date} className="relative border-l border-line" style={{ height, background: 'var(--off-hours)' }} data-day={day.date}>
          {working.map((w) => (
            <div key={w.start} className="absolute inset-x-0 bg-surface" style={{ top: y(w.top), height: y(w.bottom) - y(w.top) }} aria-hidden />
          ))}
          {/* The hour lines: one repeating background (globals.css .week-hour-lines), not a line element per hour. */}
          <div className="week-hour-lines" style={{ backgroundSize: `100% ${HOUR_PX}px` }} aria-hidden />
          {blocks.map((b) => (
            <div
              key={b.start}
              className="absolute inset-x-0 flex items-start justify-end px-1 text-[10px] text-muted"
              style={{ top: y(b.top), height: y(b.bottom) - y(b.top), background: 'var(--blocked)' }}
              title={`Blocked ${b.label}`}
            >
              <span aria-hidden>Blocked</span>
            </div>
          ))}
          <DayEvents events={placeInLanes(dayEvents).map((pl) => placed(pl, y, selectedEventId, movable && eventLinkBase !== undefined))} linkBase={eventLinkBase} />
          {movable && <DayDraft date={day.date} />}
          {dayCands.length > 0 && <DayCandidates cands={dayCands} y={y} day={formatWeekday(day.start, tz)} />}
        </div>
      ))}
    </div>
  );

  return (
    <SoftLinks
      className="overflow-x-auto rounded-lg border border-line bg-surface"
      role="region"
      aria-label={`Week of ${formatWeekday(week.days[0].start, tz)}, times in ${tz}`}
      tabIndex={0}
    >
      {movable ? (
        <WeekDrag timeZone={tz} dates={week.days.map((d) => d.date)} first={first} last={last} hourPx={HOUR_PX}>
          {grid}
        </WeekDrag>
      ) : (
        grid
      )}
    </SoftLinks>
  );
}

/** A day's candidates: markers side by side on a rail, the chosen one drawn over the day (CandidateLayer). */
function DayCandidates({ cands, y, day }: { cands: (Candidate & Piece & { n: number; label: string })[]; y: (m: number) => number; day: string }) {
  const placed = placeInLanes(cands);
  const marks = placed.map((c) => ({
    n: c.n,
    key: c.key ?? String(c.n),
    top: y(c.top),
    height: Math.max(18, y(c.bottom) - y(c.top)),
    time: c.label,
    summary: c.summary ?? '',
    conflict: c.conflicts.length > 0 || c.in_hard_block || c.outside_working_hours,
    lane: c.lane,
  }));
  return <CandidateLayer marks={marks} day={day} lanes={Math.max(1, ...placed.map((c) => c.lanes))} />;
}

/** A block's row for DayEvents: its text, placement and classes (what colour, hold, ended and selected look like is CSS). */
function placed(pl: WeekEvent & Timed & Piece & { label: string; lane: number; lanes: number }, y: (m: number) => number, selectedId: string | undefined, movable: boolean): PlacedEvent {
  const ended = pl.status === 'cancelled' || pl.status === 'preempted';
  const title = pl.title ?? (pl.kind === 'hold' ? 'Hold' : 'Booking');
  const detail = `${pl.label}${pl.meeting_class ? ` · ${pl.meeting_class}` : ''}${pl.kind === 'hold' ? ' · hold' : ''}${ended ? ` · ${pl.status}` : ''}`;
  const classes = cn(classColour(pl.meeting_class), pl.kind === 'hold' && 'hold', ended && 'ended', pl.id === selectedId && 'selected');
  const px = (v: number) => Math.round(v * 10) / 10; // "7.3", not "7.333333333333333", in each row
  return [pl.id, title, detail, px(y(pl.top)), px(Math.max(18, y(pl.bottom) - y(pl.top) - 1)), pl.lane, pl.lanes, classes, pl.sacred ? 1 : 0, withHosts(pl), movable && pl.kind === 'booking' && pl.status === 'confirmed' ? `${pl.s / 60_000}/${pl.e / 60_000}` : '', pl.series_id ? 1 : 0];
}

/** A group's block: "with Lee Chen, sam@example.com" (a host whose copy ended where this one did not says so); '' for one owner's. */
function withHosts(pl: WeekEvent): string {
  if (!pl.co_hosts.length) return '';
  return `with ${pl.co_hosts.map((h) => `${h.name ?? h.email}${h.status !== pl.status && (h.status === 'cancelled' || h.status === 'preempted') ? ` (${h.status})` : ''}`).join(', ')}`;
}
