import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingProposals, claims, owners } from '@/db/schema';
import { mailLocale } from '@/i18n/mail';
import { sendMail } from '../email';
import { invitationMail, requesterInvitationIcs } from './invitationMail';
import { invitationIcs, type InvitationInput } from './invitationIcs';

/**
 * Mailing one invitation (a booking's, invitations.ts, or a series', seriesInvitations.ts) to
 * its attendees, each in their zone and the public requester in their language
 * (docs/calendars.md "Invitations").
 */

/** The columns of a Due booking read from claims joined with its owner (the meeting type's title aside). */
export const dueColumns = {
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
  sequence: claims.sequence,
  status: claims.status,
};

export type Due = {
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
  /** A public booking's meeting type title: the meeting as its requester knows it (the booking's own title names the requester, for the owner). */
  typeTitle: string | null;
};

/**
 * Each attendee's zone for the mail's text (docs/calendars.md "Invitations"):
 * the public requester's from their booking pages, an owner's own zone when
 * the attendee is an owner of the customer, else the organizing owner's. And the public
 * requester with the language of their request (docs/public-scheduling.md "Languages").
 */
async function attendeeZones(db: Executor, b: Due): Promise<{ zones: Map<string, string>; requester: { email: string; locale: string | null } | null }> {
  const zones = new Map<string, string>();
  let requester: { email: string; locale: string | null } | null = null;
  const emails = b.attendees.map((a) => a.email.toLowerCase());
  if (!emails.length) return { zones, requester };
  const known = await db.select({ email: owners.email, tz: owners.timeZone }).from(owners).where(and(eq(owners.customerId, b.customerId), inArray(owners.email, emails)));
  for (const o of known) zones.set(o.email.toLowerCase(), o.tz);
  if (b.proposalId) {
    const [p] = await db.select({ email: bookingProposals.requesterEmail, tz: bookingProposals.requesterTimeZone, locale: bookingProposals.requesterLocale }).from(bookingProposals).where(eq(bookingProposals.id, b.proposalId));
    if (p?.email && p.tz) zones.set(p.email.toLowerCase(), p.tz);
    if (p?.email) requester = { email: p.email.toLowerCase(), locale: p.locale };
  }
  return { zones, requester };
}

/**
 * Mail `i` to `to` (by default its attendees). `build` writes the ICS of an invitation input (a
 * series adds its moved occurrences to it: seriesInvitations.ts); the requester's own copy is
 * built by it too.
 */
export async function mailAll(db: Executor, b: Due, i: InvitationInput & { method: 'REQUEST' | 'CANCEL' }, to: { email: string }[] = i.attendees, build: (i: InvitationInput) => string = invitationIcs): Promise<void> {
  if (!to.length) return;
  const content = build(i);
  const { zones, requester } = await attendeeZones(db, b);
  for (const a of to) {
    const zone = zones.get(a.email.toLowerCase()) ?? b.ownerTimeZone;
    // The public requester reads theirs in the language of their request (docs/public-scheduling.md "Languages").
    const locale = requester?.email === a.email.toLowerCase() ? mailLocale(requester.locale) : 'en';
    if (locale === 'en') {
      await sendMail(invitationMail(i, a.email, zone, content));
      continue;
    }
    // Their copy names the meeting as their pages did (the type's title), same UID and SEQUENCE.
    const theirs = { ...i, title: b.typeTitle ?? i.title };
    await sendMail(invitationMail(theirs, a.email, zone, requesterInvitationIcs(theirs, zone, locale, build), locale));
  }
}

