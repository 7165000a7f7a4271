import ICAL from 'ical.js';
import { utcOffsetAt } from '../scheduling/localTime';

/**
 * Zoned times for a recurring series' ICS (docs/calendars.md "Series invitations"): an RRULE must
 * be expanded in the owner's zone to keep the same local time across daylight-saving changes
 * (RFC 5545 3.3.10), so DTSTART, EXDATE and RECURRENCE-ID carry TZID and the calendar a VTIMEZONE
 * of that zone (RFC 5545 3.6.5: every TZID used needs one; Outlook refuses the file without it).
 * The VTIMEZONE lists the zone's real transitions over the series' span as explicit observances
 * (DTSTART, TZOFFSETFROM, TZOFFSETTO, no rule), read from the same zone data the arbiter uses.
 */

const DAY = 86_400_000;
const MINUTE = 60_000;
/** How far apart the offset is sampled: no zone changes its offset twice within a week. */
const STEP = 7 * DAY;

const two = (n: number) => String(n).padStart(2, '0');

/** The local "YYYYMMDDTHHMMSS" of an instant at a UTC offset (ms). */
function localStamp(instant: number, offsetMs: number): string {
  const d = new Date(instant + offsetMs);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}T${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
}

/** A local date-time value in `timeZone` (written with TZID by zonedProperty). */
function localTime(instant: number, timeZone: string): ICAL.Time {
  return ICAL.Time.fromDateTimeString(ICAL.design.icalendar.value['date-time'].fromICAL!(localStamp(instant, utcOffsetAt(timeZone, instant))) as string);
}

/** A DTSTART, DTEND, EXDATE or RECURRENCE-ID property at `instant`, local to `timeZone`, with TZID. */
export function zonedProperty(name: string, instant: number, timeZone: string): ICAL.Property {
  const p = new ICAL.Property(name);
  p.setValue(localTime(instant, timeZone));
  p.setParameter('tzid', timeZone);
  return p;
}

/** "+0100" for 3 600 000 ms. */
function offsetValue(ms: number): ICAL.UtcOffset {
  return ICAL.UtcOffset.fromSeconds(ms / 1000);
}

/** The instants in [from, to) at which the zone's UTC offset changes, with the offsets either side. */
function transitions(timeZone: string, from: number, to: number): { at: number; before: number; after: number }[] {
  const out: { at: number; before: number; after: number }[] = [];
  let t = from;
  let offset = utcOffsetAt(timeZone, t);
  while (t < to) {
    const next = t + STEP;
    const nextOffset = utcOffsetAt(timeZone, next);
    if (nextOffset !== offset) {
      // The first minute with the new offset.
      let lo = t;
      let hi = next;
      while (hi - lo > MINUTE) {
        const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE || lo + MINUTE;
        if (utcOffsetAt(timeZone, mid) === offset) lo = mid;
        else hi = mid;
      }
      out.push({ at: hi, before: offset, after: nextOffset });
      offset = nextOffset;
    }
    t = next;
  }
  return out;
}

/**
 * The VTIMEZONE of `timeZone` valid from `from` to `to` (epoch ms): one observance in force at
 * `from`, then one per transition up to `to`. A transition to a larger offset is DAYLIGHT, to a
 * smaller one STANDARD; a zone without transitions has one STANDARD observance.
 */
export function vtimezone(timeZone: string, from: number, to: number): ICAL.Component {
  const tz = new ICAL.Component('vtimezone');
  tz.addPropertyWithValue('tzid', timeZone);
  const start = from - DAY;
  const changes = transitions(timeZone, start, to + DAY);
  const initial = utcOffsetAt(timeZone, start);
  const offsets = [initial, ...changes.map((c) => c.after)];
  const lowest = Math.min(...offsets);
  const observance = (kind: 'standard' | 'daylight', dtstart: string, fromMs: number, toMs: number) => {
    const o = new ICAL.Component(kind);
    o.addPropertyWithValue('dtstart', ICAL.Time.fromDateTimeString(ICAL.design.icalendar.value['date-time'].fromICAL!(dtstart) as string));
    o.addPropertyWithValue('tzoffsetfrom', offsetValue(fromMs));
    o.addPropertyWithValue('tzoffsetto', offsetValue(toMs));
    tz.addSubcomponent(o);
  };
  // In force before the span: from a date before any series (the offset at the span's start).
  observance(initial > lowest ? 'daylight' : 'standard', '19700101T000000', initial, initial);
  for (const c of changes) observance(c.after > c.before ? 'daylight' : 'standard', localStamp(c.at, c.before), c.before, c.after);
  return tz;
}
