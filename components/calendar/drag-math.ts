/**
 * The week's drag and keyboard moves in wall-clock terms (docs/dashboard.md "Moving on the
 * week"): a draft is a day of the week and minutes into it, snapped to quarter hours; what
 * the server is asked is that wall time in the owner's zone. Layout only: no business rule
 * (the server arbitrates every move).
 */
import { wallTime, zonedWallTimeToIso } from '@/components/ui/time-format';

const SNAP_MINUTES = 15;
/** The id of the one description every movable block points at (aria-describedby; WeekDrag renders it). */
export const MOVE_KEYS_ID = 'week-move-keys';
const DAY = 1440;

/** A booking being moved or resized: its owner-local day and start (minutes into the day), and its length in minutes. */
export type Draft = { id: string; title: string; date: string; min: number; dur: number; look?: string; from: { date: string; min: number; dur: number; start: string; end: string } };

/** A draft for a booking from its instants (ISO) in `timeZone`. */
export function draftOf(id: string, title: string, start: string, end: string, timeZone: string): Draft {
  const wall = wallTime(start, timeZone);
  const date = wall.slice(0, 10);
  const min = Number(wall.slice(11, 13)) * 60 + Number(wall.slice(14, 16));
  const dur = Math.max(SNAP_MINUTES, Math.round((Date.parse(end) - Date.parse(start)) / 60_000));
  return { id, title, date, min, dur, from: { date, min, dur, start, end } };
}

/** The nearest quarter hour. */
export const snap = (minutes: number) => Math.round(minutes / SNAP_MINUTES) * SNAP_MINUTES;

/** The next quarter hour up (dir -1) or down (dir 1) from `minutes` (10:05 → 10:00 up, 10:15 down). */
export const step = (minutes: number, dir: 1 | -1) => (dir > 0 ? Math.floor(minutes / SNAP_MINUTES) * SNAP_MINUTES + SNAP_MINUTES : Math.ceil(minutes / SNAP_MINUTES) * SNAP_MINUTES - SNAP_MINUTES);

/** Kept inside its day: starts at 00:00 at the earliest and no later than a quarter hour before midnight. */
export function clampStart(min: number, dur: number): number {
  return Math.max(0, Math.min(DAY - Math.min(dur, SNAP_MINUTES), min));
}

/** A length of at least a quarter hour that ends by midnight. */
export function clampLength(min: number, dur: number): number {
  return Math.max(SNAP_MINUTES, Math.min(DAY - min, dur));
}

/** The draft moved to `date` at `min` (snapped). */
export function moveTo(d: Draft, date: string, min: number): Draft {
  return { ...d, date, min: clampStart(snap(min), d.dur) };
}

/** The draft's length set to end at `endMin` minutes into its day (snapped). */
export function resizeTo(d: Draft, endMin: number): Draft {
  return { ...d, dur: clampLength(d.min, snap(endMin) - d.min) };
}

/** The draft's days moved by `days` within the week's dates. */
export function shiftDay(d: Draft, dates: string[], days: number): Draft {
  const i = dates.indexOf(d.date);
  const j = Math.max(0, Math.min(dates.length - 1, (i < 0 ? 0 : i) + days));
  return { ...d, date: dates[j] };
}

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** The draft's instants (ISO) in `timeZone`; null when the wall time does not exist there. */
export function instantsOf(d: Draft, timeZone: string): { start: string; end: string } | null {
  const start = zonedWallTimeToIso(`${d.date}T${hhmm(d.min)}`, timeZone);
  if (!start) return null;
  return { start, end: new Date(Date.parse(start) + d.dur * 60_000).toISOString() };
}

/** Whether the draft is where the booking already is. */
export const unchanged = (d: Draft) => d.date === d.from.date && d.min === d.from.min && d.dur === d.from.dur;
