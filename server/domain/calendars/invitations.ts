import ICAL from 'ical.js';
import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingInvitations, bookingProposals, claims, owners, publicMeetingTypes } from '@/db/schema';
import { formatMailRange, sendMail, type MailMessage } from '../email';
import { bookingUid } from './sync';

/**
 * ICS invitations to a booking's attendees through the mailer
 * (docs/calendars.md "Invitations"): METHOD:REQUEST with ORGANIZER (the
 * owner), one ATTENDEE per attendee, SEQUENCE 0 and the booking's stable
 * UID once it is confirmed; METHOD:CANCEL with the same UID and the next
 * SEQUENCE once it is cancelled or preempted; METHOD:REQUEST again, same UID, with the
 * booking's revision as SEQUENCE (claims.sequence) once it was moved or its details edited,
 * the reason as COMMENT (docs/api.md "Reschedule"). Sent by a sweep task after the
 * booking committed (mail never holds a claim transaction), recorded in
 * booking_invitations so each is sent once. Only bookings made in the last
 * 24 h are invited (older ones predate the feature or were already due).
 */
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
  /** CANCEL: why, in words (the booking's status reason: the owner's cancellation reason, or what replaced it); an update: why it moved. */
  reason?: string | null;
  /** A REQUEST that updates an invitation sent before (the booking moved or was edited). */
  update?: boolean;
  description?: string | null;
  now: Date;
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
  ev.addPropertyWithValue('dtstart', ICAL.Time.fromJSDate(i.start, true));
  ev.addPropertyWithValue('dtend', ICAL.Time.fromJSDate(i.end, true));
  ev.addPropertyWithValue('summary', i.title);
  if (i.location) ev.addPropertyWithValue('location', i.location);
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

type Due = {
  id: string;
  customerId: string;
  startAt: Date;
  endAt: Date;
  title: string | null;
  attendees: { email: string; name?: string | null }[];
  ownerEmail: string;
  ownerName: string | null;
  ownerTimeZone: string;
  reason: string | null;
  proposalId: string | null;
  /** The booking's revision (claims.sequence); on a sent invitation, the revision it was sent at. */
  sequence: number;
};

/**
 * Each attendee's zone for the mail's text (docs/calendars.md "Invitations"):
 * the public requester's from their booking pages, an owner's own zone when
 * the attendee is an owner of the customer, else the organizing owner's.
 */
async function attendeeZones(db: Executor, b: Due): Promise<Map<string, string>> {
  const zones = new Map<string, string>();
  const emails = b.attendees.map((a) => a.email.toLowerCase());
  if (!emails.length) return zones;
  const known = await db.select({ email: owners.email, tz: owners.timeZone }).from(owners).where(and(eq(owners.customerId, b.customerId), inArray(owners.email, emails)));
  for (const o of known) zones.set(o.email.toLowerCase(), o.tz);
  if (b.proposalId) {
    const [p] = await db.select({ email: bookingProposals.requesterEmail, tz: bookingProposals.requesterTimeZone }).from(bookingProposals).where(eq(bookingProposals.id, b.proposalId));
    if (p?.email && p.tz) zones.set(p.email.toLowerCase(), p.tz);
  }
  return zones;
}

/** The mail of an invitation or cancellation to one attendee: the time in their zone, named; the ICS attached. */
export function invitationMail(i: InvitationInput & { method: 'REQUEST' | 'CANCEL' }, to: string, timeZone: string, content = invitationIcs(i)): MailMessage {
  const when = formatMailRange(i.start, i.end, timeZone);
  const by = !i.organizer ? 'the organizer' : i.organizer.name ? `${i.organizer.name} (${i.organizer.email})` : i.organizer.email;
  return {
    to,
    subject: i.method === 'CANCEL' ? `Cancelled: ${i.title}` : i.update ? `Updated: ${i.title}` : `Invitation: ${i.title}`,
    text:
      i.method === 'CANCEL'
        ? `This meeting was cancelled: ${i.title}, ${when}.${i.reason ? `\nReason: ${i.reason}` : ''}`
        : i.update
          ? [`${by} updated this meeting: ${i.title}`, `When: ${when}`, ...(i.location ? [`Where: ${i.location}`] : []), ...(i.reason ? [`Reason: ${i.reason}`] : []), '', 'The attached update replaces the invitation in your calendar; please respond again.'].join('\n')
          : [`You are invited by ${by}: ${i.title}`, `When: ${when}`, ...(i.location ? [`Where: ${i.location}`] : []), '', 'The attached invitation adds it to your calendar.'].join('\n'),
    icalEvent: { method: i.method, content },
  };
}

async function mailAll(db: Executor, b: Due, i: InvitationInput & { method: 'REQUEST' | 'CANCEL' }): Promise<void> {
  const content = invitationIcs(i);
  const zones = await attendeeZones(db, b);
  for (const a of i.attendees) await sendMail(invitationMail(i, a.email, zones.get(a.email.toLowerCase()) ?? b.ownerTimeZone, content));
}

/** Send due invitations and cancellations (up to `limit` each); returns how many bookings were handled. */
export async function sendDueInvitations(db: Executor, now: Date, limit = 100): Promise<{ requests: number; cancels: number; updates: number }> {
  const cols = {
    id: claims.id,
    customerId: claims.customerId,
    startAt: claims.startAt,
    endAt: claims.endAt,
    title: claims.title,
    attendees: claims.attendees,
    ownerEmail: owners.email,
    ownerName: owners.name,
    ownerTimeZone: owners.timeZone,
    proposalId: claims.proposalId,
    reason: claims.statusReason,
    location: publicMeetingTypes.location,
    sequence: claims.sequence,
    status: claims.status,
  };
  const newBookings: (Due & { location: string | null })[] = await db
    .select(cols)
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(bookingProposals, eq(bookingProposals.id, claims.proposalId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .leftJoin(bookingInvitations, eq(bookingInvitations.claimId, claims.id))
    .where(and(eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), gt(claims.endAt, now), gt(claims.createdAt, new Date(now.getTime() - 86_400_000)), isNull(bookingInvitations.claimId), sql`jsonb_array_length(${claims.attendees}) > 0`))
    .limit(limit);
  for (const b of newBookings) {
    const uid = bookingUid(b.id);
    // Record first: a crash between the two loses one courtesy mail rather than sending it twice.
    const [claimed] = await db.insert(bookingInvitations).values({ claimId: b.id, uid, sequence: b.sequence, method: 'REQUEST', sentAt: now }).onConflictDoNothing().returning();
    if (!claimed) continue;
    await mailAll(db, b, { method: 'REQUEST', uid, sequence: b.sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', location: b.location, now });
  }
  // Sent invitations that are due again: the booking ended (CANCEL, next SEQUENCE), or it was moved or edited since
  // (REQUEST again, same UID, the booking's revision as SEQUENCE).
  const due = await db
    .select({ ...cols, sent: bookingInvitations.sequence, uid: bookingInvitations.uid })
    .from(bookingInvitations)
    .innerJoin(claims, eq(claims.id, bookingInvitations.claimId))
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(bookingProposals, eq(bookingProposals.id, claims.proposalId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .where(and(eq(bookingInvitations.method, 'REQUEST'), or(inArray(claims.status, ['cancelled', 'preempted']), and(eq(claims.status, 'confirmed'), gt(claims.sequence, bookingInvitations.sequence)))))
    .limit(limit);
  let cancels = 0;
  for (const b of due) {
    const ended = b.status !== 'confirmed';
    const sequence = ended ? b.sent + 1 : b.sequence;
    const [claimed] = await db
      .update(bookingInvitations)
      .set({ method: ended ? 'CANCEL' : 'REQUEST', sequence, sentAt: now })
      .where(and(eq(bookingInvitations.claimId, b.id), eq(bookingInvitations.method, 'REQUEST'), eq(bookingInvitations.sequence, b.sent)))
      .returning();
    if (!claimed) continue;
    if (ended) cancels++;
    const common = { uid: b.uid, sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', location: b.location, reason: b.reason, now };
    await mailAll(db, b, ended ? { method: 'CANCEL', ...common } : { method: 'REQUEST', update: true, ...common });
  }
  return { requests: newBookings.length, cancels, updates: due.length - cancels };
}

/**
 * People removed from a booking (PATCH /v1/bookings/{id}) whose invitation went out: a
 * METHOD:CANCEL with the booking's UID and its new revision as SEQUENCE, to them only,
 * in the organizing owner's zone. Nothing when no invitation was sent yet.
 */
export async function mailRemovedAttendees(
  db: Executor,
  b: { row: { id: string; startAt: Date; endAt: Date; title: string | null; sequence: number }; ownerEmail: string; ownerName: string | null; ownerTimeZone: string },
  removed: { email: string; name?: string | null }[],
  now: Date,
): Promise<void> {
  const [sent] = await db.select({ uid: bookingInvitations.uid }).from(bookingInvitations).where(eq(bookingInvitations.claimId, b.row.id));
  if (!sent) return;
  const i = { method: 'CANCEL' as const, uid: sent.uid, sequence: b.row.sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: removed, start: b.row.startAt, end: b.row.endAt, title: b.row.title ?? 'Meeting', reason: 'You were removed from this meeting', now };
  const content = invitationIcs(i);
  for (const a of removed) await sendMail(invitationMail(i, a.email, b.ownerTimeZone, content));
}
