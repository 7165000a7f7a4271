import ICAL from 'ical.js';
import { Temporal } from 'temporal-polyfill';

/**
 * Busy instances of the VEVENTs in one iCalendar object, expanded with
 * ical.js for a bounded horizon (docs/calendars.md "What is synced"):
 * RRULE and RDATE, EXDATE, overridden instances (RECURRENCE-ID), all-day
 * dates, zoned (VTIMEZONE or an IANA TZID) and floating times (read in the
 * owner's time zone). Cancelled and transparent ("free") events are not busy.
 */
export type BusyInstance = { uid: string; start: number; end: number };

const MAX_INSTANCES_PER_EVENT = 5000;

export function expandIcs(ics: string, range: { start: number; end: number }, ownerTimeZone: string): BusyInstance[] {
  const root = new ICAL.Component(ICAL.parse(ics));
  // Time zones defined in the object itself.
  for (const tz of root.getAllSubcomponents('vtimezone')) {
    const zone = new ICAL.Timezone(tz);
    if (!ICAL.TimezoneService.has(zone.tzid)) ICAL.TimezoneService.register(zone);
  }
  const byUid = new Map<string, { master?: ICAL.Event; overrides: ICAL.Event[] }>();
  for (const c of root.getAllSubcomponents('vevent')) {
    const ev = new ICAL.Event(c);
    const entry = byUid.get(ev.uid) ?? { overrides: [] };
    if (c.hasProperty('recurrence-id')) entry.overrides.push(ev);
    else entry.master = ev;
    byUid.set(ev.uid, entry);
  }
  const out: BusyInstance[] = [];
  const push = (uid: string, comp: ICAL.Component, start: ICAL.Time, end: ICAL.Time) => {
    if (!isBusy(comp)) return;
    const zone = fallbackZone(comp, ownerTimeZone);
    const s = toInstant(start, zone);
    let e = toInstant(end, zone);
    if (e <= s) e = s + (start.isDate ? 86_400_000 : 0);
    if (e > s && s < range.end && e > range.start) out.push({ uid, start: s, end: e });
  };
  for (const [uid, { master, overrides }] of byUid) {
    if (!master) {
      // Overrides whose series is not in this object: each is its own instance.
      for (const o of overrides) push(uid, o.component, o.startDate, endOf(o));
      continue;
    }
    for (const o of overrides) master.relateException(o);
    if (!master.isRecurring()) {
      push(uid, master.component, master.startDate, endOf(master));
      continue;
    }
    const it = master.iterator();
    let next: ICAL.Time | null;
    let n = 0;
    while ((next = it.next()) && n++ < MAX_INSTANCES_PER_EVENT) {
      const d = master.getOccurrenceDetails(next);
      if (toInstant(d.startDate, fallbackZone(master.component, ownerTimeZone)) >= range.end) break;
      push(uid, d.item.component, d.startDate, d.endDate);
    }
    // Overrides moved into the range from an occurrence outside it.
    for (const o of overrides) {
      const rid = toInstant(o.recurrenceId, fallbackZone(o.component, ownerTimeZone));
      if (rid >= range.end || rid < range.start - 366 * 86_400_000) {
        push(uid, o.component, o.startDate, endOf(o));
      }
    }
  }
  return out;
}

function endOf(ev: ICAL.Event): ICAL.Time {
  if (ev.component.hasProperty('dtend') || ev.component.hasProperty('duration')) return ev.endDate;
  // RFC 5545: no end -> a date lasts one day, a date-time is an instant.
  const end = ev.startDate.clone();
  if (end.isDate) end.day += 1;
  return end;
}

function isBusy(comp: ICAL.Component): boolean {
  const status = String(comp.getFirstPropertyValue('status') ?? '').toUpperCase();
  const transp = String(comp.getFirstPropertyValue('transp') ?? '').toUpperCase();
  return status !== 'CANCELLED' && transp !== 'TRANSPARENT';
}

/**
 * The zone of a time ical.js cannot place itself: a TZID without a VTIMEZONE
 * in the object that names an IANA zone is read in that zone; floating times
 * and all-day dates in the owner's zone.
 */
function fallbackZone(comp: ICAL.Component, ownerTimeZone: string): string {
  const tzid = comp.getFirstProperty('dtstart')?.getParameter('tzid');
  return typeof tzid === 'string' && isIana(tzid) ? tzid : ownerTimeZone;
}

/** Epoch ms of a time: UTC and VTIMEZONE zones by ical.js; other times as wall-clock time in `zone`. */
function toInstant(t: ICAL.Time, zone: string): number {
  if (!t.isDate && (t.zone === ICAL.Timezone.utcTimezone || (t.zone && t.zone.component))) return t.toUnixTime() * 1000;
  return Temporal.PlainDateTime.from({ year: t.year, month: t.month, day: t.day, hour: t.isDate ? 0 : t.hour, minute: t.isDate ? 0 : t.minute, second: t.isDate ? 0 : t.second })
    .toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

function isIana(name: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(name);
    return true;
  } catch {
    return false;
  }
}
