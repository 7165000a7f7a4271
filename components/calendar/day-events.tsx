'use client';

import { Lock, Repeat, Users } from 'lucide-react';
import type { CSSProperties } from 'react';
import { MOVE_KEYS_ID } from './drag-math';

/**
 * One placed booking or hold of a day column, as the server computed it (layout only):
 * [id, title, detail, top px, height px, lane, lanes, classes (colour, hold, ended, selected), sacred,
 * with: a group's other hosts in words ("with Lee Chen, Sam Park"), '' for one owner's,
 * move: a booking the owner can move on the week, its start and end in epoch minutes ("29431260/29431320"), else '',
 * series: 1 for an occurrence of a recurring series (a repeat icon, "recurring series" read aloud), else 0].
 */
export type PlacedEvent = [id: string, title: string, detail: string, top: number, height: number, lane: number, lanes: number, classes: string, sacred: 0 | 1, withHosts: string, move: string, series: 0 | 1];

/** A block's text lines (globals.css .week-event: 13 px a line, 1 px of padding above and below). */
const LINE_PX = 13;

/**
 * A day column's bookings and holds, drawn from compact rows. A client
 * component only for the size of the page: a server component's blocks travel
 * twice, as HTML and again as the React tree in the page's flight data, and a
 * week can hold hundreds; as rows the second copy is about a fifth of the tree
 * (docs/benchmarks/history/2026-11-25-browser-pages.md). The HTML is rendered on the
 * server all the same. Links (`linkBase` + id) are plain links that the
 * surrounding SoftLinks navigates client-side; the look is globals.css .week-event.
 * A movable booking carries its id and times for WeekDrag (week-drag.tsx) and a bottom edge to
 * drag its length by.
 */
export function DayEvents({ events, linkBase }: { events: PlacedEvent[]; linkBase?: string }) {
  return events.map(([id, title, detail, top, height, lane, lanes, classes, sacred, withHosts, move, series]) => {
    // The title wraps over the lines the block has, less one for the time (and one for a group's hosts):
    // a 30-minute block shows its title and its time, a longer one a long title whole.
    const lines = Math.floor((height - 2) / LINE_PX);
    const titleLines = Math.max(1, lines - 1 - (withHosts ? 1 : 0));
    // The visible text is the accessible name; what colour and icons say is added for screen readers.
    // A group's block: a people icon before the title and its other hosts on a third line
    // (a short block shows the icon; the name read aloud says all, the details list the hosts).
    // An occurrence of a series: a repeat icon before the title, "recurring series" read aloud (its details open the series).
    const body = (
      <>
        <span style={titleLines > 1 ? ({ '--title-lines': titleLines } as CSSProperties) : undefined}>
          {sacred ? <Lock className="size-3 shrink-0" aria-hidden /> : null}
          {withHosts ? <Users className="size-3 shrink-0" aria-hidden /> : null}
          {series ? <Repeat className="size-3 shrink-0" aria-hidden data-series /> : null}
          {title}
        </span>
        <span>
          <span className="sr-only">, </span>
          {detail}
          {sacred ? <span className="sr-only"> · sacred</span> : null}
          {series ? <span className="sr-only"> · recurring series</span> : null}
        </span>
        {withHosts ? (
          <span>
            <span className="sr-only">, group meeting </span>
            {withHosts}
          </span>
        ) : null}
        {move ? <i className="week-resize" data-resize aria-hidden /> : null}
      </>
    );
    // One lane (the usual case): the column's full width (the CSS default); side by side: a share of it.
    const style = lanes > 1 ? { top, height, left: `calc(${(lane / lanes) * 100}% + 2px)`, width: `calc(${100 / lanes}% - 4px)` } : { top, height };
    const className = `week-event ${classes}`;
    const movable = move ? { 'data-id': id, 'data-move': move, draggable: false, 'aria-describedby': MOVE_KEYS_ID } : {};
    return linkBase !== undefined ? (
      <a key={id} href={linkBase + id} className={className} style={style} {...movable}>
        {body}
      </a>
    ) : (
      <div key={id} className={className} style={style}>
        {body}
      </div>
    );
  });
}
