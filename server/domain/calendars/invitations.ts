import ICAL from 'ical.js';
import { and, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingInvitations, claims, owners } from '@/db/schema';
import { sendMail } from '../email';
import { bookingUid } from './sync';

/**
 * ICS invitations to a booking's attendees through the mailer
 * (docs/calendars.md "Invitations"): METHOD:REQUEST with ORGANIZER (the
 * owner), one ATTENDEE per attendee, SEQUENCE 0 and the booking's stable
 * UID once it is confirmed; METHOD:CANCEL with the same UID and the next
 * SEQUENCE once it is cancelled or preempted. Sent by a sweep task after the
 * booking committed (mail never holds a claim transaction), recorded in
 * booking_invitations so each is sent once. Only bookings made in the last
 * 24 h are invited (older ones predate the feature or were already due).
 */
export type InvitationInput = {
  method: 'REQUEST' | 'CANCEL';
  uid: string;
  sequence: number;
  organizer: { email: string; name?: string | null };
  attendees: { email: string; name?: string | null }[];
  start: Date;
  end: Date;
  title: string;
  /** CANCEL: why, in words (the booking's status reason: the owner's cancellation reason, or what replaced it). */
  reason?: string | null;
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
  ev.addPropertyWithValue('status', i.method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED');
  const org = ev.addPropertyWithValue('organizer', `mailto:${i.organizer.email}`);
  if (i.organizer.name) org.setParameter('cn', i.organizer.name);
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

type Due = { id: string; startAt: Date; endAt: Date; title: string | null; reason: string | null; attendees: { email: string; name?: string | null }[]; ownerEmail: string; ownerName: string | null };

async function mailAll(i: InvitationInput): Promise<void> {
  const content = invitationIcs(i);
  const when = `${i.start.toISOString()} - ${i.end.toISOString()} (UTC)`;
  for (const a of i.attendees) {
    await sendMail({
      to: a.email,
      subject: i.method === 'CANCEL' ? `Cancelled: ${i.title}` : `Invitation: ${i.title}`,
      text: i.method === 'CANCEL' ? `This meeting was cancelled: ${i.title}, ${when}.${i.reason ? `\nReason: ${i.reason}` : ''}` : `You are invited by ${i.organizer.email}: ${i.title}, ${when}.`,
      icalEvent: { method: i.method, content },
    });
  }
}

/** Send due invitations and cancellations (up to `limit` each); returns how many bookings were handled. */
export async function sendDueInvitations(db: Executor, now: Date, limit = 100): Promise<{ requests: number; cancels: number }> {
  const cols = { id: claims.id, startAt: claims.startAt, endAt: claims.endAt, title: claims.title, reason: claims.statusReason, attendees: claims.attendees, ownerEmail: owners.email, ownerName: owners.name };
  const newBookings: Due[] = await db
    .select(cols)
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(bookingInvitations, eq(bookingInvitations.claimId, claims.id))
    .where(and(eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), gt(claims.endAt, now), gt(claims.createdAt, new Date(now.getTime() - 86_400_000)), isNull(bookingInvitations.claimId), sql`jsonb_array_length(${claims.attendees}) > 0`))
    .limit(limit);
  for (const b of newBookings) {
    const uid = bookingUid(b.id);
    // Record first: a crash between the two loses one courtesy mail rather than sending it twice.
    const [claimed] = await db.insert(bookingInvitations).values({ claimId: b.id, uid, sequence: 0, method: 'REQUEST', sentAt: now }).onConflictDoNothing().returning();
    if (!claimed) continue;
    await mailAll({ method: 'REQUEST', uid, sequence: 0, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', now });
  }
  const ended = await db
    .select({ ...cols, sequence: bookingInvitations.sequence, uid: bookingInvitations.uid })
    .from(bookingInvitations)
    .innerJoin(claims, eq(claims.id, bookingInvitations.claimId))
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(bookingInvitations.method, 'REQUEST'), ne(claims.status, 'confirmed'), inArray(claims.status, ['cancelled', 'preempted'])))
    .limit(limit);
  for (const b of ended) {
    const sequence = b.sequence + 1;
    const [claimed] = await db
      .update(bookingInvitations)
      .set({ method: 'CANCEL', sequence, sentAt: now })
      .where(and(eq(bookingInvitations.claimId, b.id), eq(bookingInvitations.method, 'REQUEST')))
      .returning();
    if (!claimed) continue;
    await mailAll({ method: 'CANCEL', uid: b.uid, sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', reason: b.reason, now });
  }
  return { requests: newBookings.length, cancels: ended.length };
}
