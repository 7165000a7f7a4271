import ICAL from 'ical.js';
import type { VideoProvider } from '@/db/schema';
import { videoProviderName } from './videoLinks';
import { vtimezone, zonedProperty } from './zoneIcs';

/** A booking's SUMMARY when it has no title (a requester's copy says it in their language: invitationMail.ts). */
export const UNTITLED = 'Meeting';

/** One booking's invitation as iCalendar text (docs/calendars.md "Invitations"): what invitations.ts mails and the requester's "Add to calendar" file. */
export type InvitationInput = {
  /** REQUEST and CANCEL are mailed; PUBLISH is the requester's "Add to calendar" file (docs/public-scheduling.md "Status page"). */
  method: 'REQUEST' | 'CANCEL' | 'PUBLISH';
  uid: string;
  sequence: number;
  /** Absent on the requester's PUBLISH file: public answers never carry the owner's email (docs/public-scheduling.md). */
  organizer?: { email: string; name?: string | null };
  attendees: { email: string; name?: string | null }[];
  start: Date;
  end: Date;
  title: string;
  location?: string | null;
  /** The booking's video link once ready (docs/calendars.md "Video links"): URL, CONFERENCE (RFC 7986) and the provider's own property. */
  video?: { provider: VideoProvider; url: string } | null;
  /** CANCEL: why, in words (the booking's status reason: the owner's cancellation reason, or what replaced it); an update: why it moved. */
  reason?: string | null;
  /** A REQUEST that updates an invitation sent before (the booking moved or was edited). */
  update?: boolean;
  description?: string | null;
  now: Date;
  /**
   * A recurring series' invitation (docs/calendars.md "Series invitations"): times written in the
   * owner's zone (TZID, with its VTIMEZONE over `span`), the series' RRULE and its EXDATEs on the
   * series' own VEVENT, or RECURRENCE-ID on one occurrence's. `occurrences`: what the mail's
   * text says of the series (how many are booked, the last one).
   */
  series?: { timeZone: string; span: { from: number; to: number }; rrule?: string; exdates?: Date[]; recurrenceId?: Date; occurrences?: { count: number; last: Date } };
};

export function invitationIcs(i: InvitationInput): string {
  const cal = new ICAL.Component(['vcalendar', [], []]);
  cal.addPropertyWithValue('prodid', '-//agent-scheduler//EN');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('method', i.method);
  const ev = new ICAL.Component('vevent');
  ev.addPropertyWithValue('uid', i.uid);
  ev.addPropertyWithValue('sequence', i.sequence);
  ev.addPropertyWithValue('dtstamp', ICAL.Time.fromJSDate(i.now, true));
  if (i.series) addSeries(cal, ev, i as InvitationInput & { series: NonNullable<InvitationInput['series']> });
  else {
    ev.addPropertyWithValue('dtstart', ICAL.Time.fromJSDate(i.start, true));
    ev.addPropertyWithValue('dtend', ICAL.Time.fromJSDate(i.end, true));
  }
  ev.addPropertyWithValue('summary', i.title);
  const video = i.method === 'CANCEL' ? null : (i.video ?? null);
  if (i.location || video) ev.addPropertyWithValue('location', i.location ?? video!.url);
  if (video) addVideo(ev, video);
  if (i.description) ev.addPropertyWithValue('description', i.description);
  ev.addPropertyWithValue('status', i.method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED');
  if (i.reason && i.method !== 'PUBLISH') ev.addPropertyWithValue('comment', i.reason);
  if (i.organizer) {
    const org = ev.addPropertyWithValue('organizer', `mailto:${i.organizer.email}`);
    if (i.organizer.name) org.setParameter('cn', i.organizer.name);
  }
  for (const a of i.attendees) {
    const p = ev.addPropertyWithValue('attendee', `mailto:${a.email}`);
    if (a.name) p.setParameter('cn', a.name);
    p.setParameter('role', 'REQ-PARTICIPANT');
    p.setParameter('partstat', 'NEEDS-ACTION');
    p.setParameter('rsvp', 'TRUE');
  }
  cal.addSubcomponent(ev);
  return cal.toString() + '\r\n';
}

/** A series' zoned times, RRULE, EXDATEs or RECURRENCE-ID, and the VTIMEZONE they need (added to the calendar before the event). */
function addSeries(cal: ICAL.Component, ev: ICAL.Component, i: InvitationInput & { series: NonNullable<InvitationInput['series']> }): void {
  const { timeZone, span, rrule, exdates, recurrenceId } = i.series;
  cal.addSubcomponent(vtimezone(timeZone, span.from, span.to));
  if (recurrenceId) ev.addProperty(zonedProperty('recurrence-id', recurrenceId.getTime(), timeZone));
  ev.addProperty(zonedProperty('dtstart', i.start.getTime(), timeZone));
  ev.addProperty(zonedProperty('dtend', i.end.getTime(), timeZone));
  if (rrule) ev.addPropertyWithValue('rrule', ICAL.Recur.fromString(rrule));
  for (const x of exdates ?? []) ev.addProperty(zonedProperty('exdate', x.getTime(), timeZone));
}

/** A video link as calendar clients read it: URL, CONFERENCE;FEATURE=VIDEO (RFC 7986), and Google's / Microsoft's own property. */
function addVideo(ev: ICAL.Component, video: { provider: VideoProvider; url: string }): void {
  ev.addPropertyWithValue('url', video.url);
  const conf = new ICAL.Property('conference');
  conf.setParameter('value', 'URI');
  conf.setParameter('feature', 'VIDEO');
  conf.setParameter('label', videoProviderName(video.provider));
  conf.setValue(video.url);
  ev.addProperty(conf);
  if (video.provider === 'google_meet') ev.addPropertyWithValue('x-google-conference', video.url);
  if (video.provider === 'microsoft_teams') ev.addPropertyWithValue('x-microsoft-skypeteamsmeetingurl', video.url);
}

