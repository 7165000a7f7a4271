import ICAL from 'ical.js';
import { and, eq, gt, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingInvitations, bookingProposals, bookingVideoLinks, claims, owners, publicMeetingTypes, type SentInvitation, type VideoProvider } from '@/db/schema';
import { formatMailRange, sendMail, type MailMessage } from '../email';
import { bookingUid } from './sync';
import { videoProviderName } from './videoLinks';

/**
 * ICS invitations to a booking's attendees through the mailer
 * (docs/calendars.md "Invitations"): METHOD:REQUEST with ORGANIZER (the
 * owner), one ATTENDEE per attendee, SEQUENCE 0 and the booking's stable
 * UID once it is confirmed; METHOD:CANCEL with the same UID and the next
 * SEQUENCE once it is cancelled or preempted; METHOD:REQUEST again, same UID, with the
 * booking's revision as SEQUENCE (claims.sequence) once it was moved or its details edited,
 * to whom it concerns (updatePlan: people added are invited, people kept hear of a change of
 * time, title, place or video link, the reason as COMMENT with its move only; docs/api.md "Reschedule").
 * Sent by a sweep task after the
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
  /** The booking's video link once ready (docs/calendars.md "Video links"): URL, CONFERENCE (RFC 7986) and the provider's own property. */
  video?: { provider: VideoProvider; url: string } | null;
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

/** How long a new booking's invitation waits for its video link to be made (then it goes without). */
const VIDEO_WAIT_MS = 10 * 60_000;
type VideoCols = { videoProvider: VideoProvider | null; videoStatus: string | null; videoUrl: string | null };
const readyVideo = (b: VideoCols) => (b.videoProvider && b.videoStatus === 'ready' && b.videoUrl ? { provider: b.videoProvider, url: b.videoUrl } : null);

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

/** The place lines of a mail: the address, and the video link with its provider. */
function where(i: InvitationInput): string[] {
  return [...(i.location ? [`Where: ${i.location}`] : []), ...(i.video ? [`Join (${videoProviderName(i.video.provider)}): ${i.video.url}`] : [])];
}

/** The mail of an invitation or cancellation to one attendee: the time in their zone, named; the ICS attached. */
function invitationMail(i: InvitationInput & { method: 'REQUEST' | 'CANCEL' }, to: string, timeZone: string, content = invitationIcs(i)): MailMessage {
  const when = formatMailRange(i.start, i.end, timeZone);
  const by = !i.organizer ? 'the organizer' : i.organizer.name ? `${i.organizer.name} (${i.organizer.email})` : i.organizer.email;
  return {
    to,
    subject: i.method === 'CANCEL' ? `Cancelled: ${i.title}` : i.update ? `Updated: ${i.title}` : `Invitation: ${i.title}`,
    text:
      i.method === 'CANCEL'
        ? `This meeting was cancelled: ${i.title}, ${when}.${i.reason ? `\nReason: ${i.reason}` : ''}`
        : i.update
          ? [`${by} updated this meeting: ${i.title}`, `When: ${when}`, ...where(i), ...(i.reason ? [`Reason: ${i.reason}`] : []), '', 'The attached update replaces the invitation in your calendar; please respond again.'].join('\n')
          : [`You are invited by ${by}: ${i.title}`, `When: ${when}`, ...where(i), '', 'The attached invitation adds it to your calendar.'].join('\n'),
    icalEvent: { method: i.method, content },
  };
}

async function mailAll(db: Executor, b: Due, i: InvitationInput & { method: 'REQUEST' | 'CANCEL' }, to: { email: string }[] = i.attendees): Promise<void> {
  if (!to.length) return;
  const content = invitationIcs(i);
  const zones = await attendeeZones(db, b);
  for (const a of to) await sendMail(invitationMail(i, a.email, zones.get(a.email.toLowerCase()) ?? b.ownerTimeZone, content));
}

/** What an invitation mail of `b` says now, kept in booking_invitations.sent. */
function snapshot(b: Due & { location: string | null } & VideoCols): SentInvitation {
  return { attendees: b.attendees.map((a) => a.email.toLowerCase()), start: b.startAt.toISOString(), end: b.endAt.toISOString(), title: b.title ?? 'Meeting', location: b.location, video: readyVideo(b)?.url ?? null };
}

/**
 * Who hears what when a sent invitation is due again for a confirmed booking (docs/calendars.md
 * "Invitations"), from what the last mail said (`sent`; null on rows older than it, when everyone
 * gets the update): people not on the last mail are invited (METHOD:REQUEST, "Invitation:"),
 * people on it get the update only when what it says for them changed (the time, the title,
 * the place), and the reason only when the time moved since (the reason belongs to the move
 * it was given with, never to a later edit).
 */
function updatePlan(b: Due & { location: string | null } & VideoCols, sent: SentInvitation | null): { invite: Due['attendees']; update: Due['attendees']; moved: boolean } {
  const now = snapshot(b);
  if (!sent) return { invite: [], update: b.attendees, moved: true };
  const had = new Set(sent.attendees);
  const moved = sent.start !== now.start || sent.end !== now.end;
  // A video link made since the last mail is news to everyone on it (docs/calendars.md "Video links").
  const linkMade = sent.video !== undefined && sent.video !== now.video;
  const changed = moved || linkMade || sent.title !== now.title || sent.location !== now.location;
  return { invite: b.attendees.filter((a) => !had.has(a.email.toLowerCase())), update: changed ? b.attendees.filter((a) => had.has(a.email.toLowerCase())) : [], moved };
}

/**
 * Send due invitations and cancellations (up to `limit` each); returns how many bookings were
 * handled. `customerId`: only that customer's bookings (a drain of one customer, as the tests
 * drive it beside others on one database); the sweeper sends every customer's.
 */
export async function sendDueInvitations(db: Executor, now: Date, limit = 100, customerId?: string): Promise<{ requests: number; cancels: number; updates: number }> {
  const ofCustomer = customerId ? eq(claims.customerId, customerId) : undefined;
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
    videoProvider: bookingVideoLinks.provider,
    videoStatus: bookingVideoLinks.status,
    videoUrl: bookingVideoLinks.joinUrl,
    sequence: claims.sequence,
    status: claims.status,
  };
  const newBookings: (Due & { location: string | null } & VideoCols)[] = await db
    .select(cols)
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(bookingProposals, eq(bookingProposals.id, claims.proposalId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .leftJoin(bookingInvitations, eq(bookingInvitations.claimId, claims.id))
    .leftJoin(bookingVideoLinks, eq(bookingVideoLinks.claimId, claims.id))
    // A video link still being made holds the invitation up to VIDEO_WAIT_MS, so the mail carries it (docs/calendars.md "Video links").
    .where(and(ofCustomer, eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), gt(claims.endAt, now), gt(claims.createdAt, new Date(now.getTime() - 86_400_000)), isNull(bookingInvitations.claimId), sql`jsonb_array_length(${claims.attendees}) > 0`, or(isNull(bookingVideoLinks.claimId), ne(bookingVideoLinks.status, 'pending'), lt(bookingVideoLinks.createdAt, new Date(now.getTime() - VIDEO_WAIT_MS)))))
    .limit(limit);
  for (const b of newBookings) {
    const uid = bookingUid(b.id);
    // Record first: a crash between the two loses one courtesy mail rather than sending it twice.
    const [claimed] = await db.insert(bookingInvitations).values({ claimId: b.id, uid, sequence: b.sequence, method: 'REQUEST', sentAt: now, sent: snapshot(b) }).onConflictDoNothing().returning();
    if (!claimed) continue;
    await mailAll(db, b, { method: 'REQUEST', uid, sequence: b.sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', location: b.location, video: readyVideo(b), now });
  }
  // Sent invitations that are due again: the booking ended (CANCEL, next SEQUENCE), or it was moved or edited since
  // (REQUEST again, same UID, the booking's revision as SEQUENCE, to whom it concerns: updatePlan).
  const due = await db
    .select({ ...cols, sentSequence: bookingInvitations.sequence, sent: bookingInvitations.sent, uid: bookingInvitations.uid })
    .from(bookingInvitations)
    .innerJoin(claims, eq(claims.id, bookingInvitations.claimId))
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(bookingProposals, eq(bookingProposals.id, claims.proposalId))
    .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
    .leftJoin(bookingVideoLinks, eq(bookingVideoLinks.claimId, claims.id))
    .where(and(ofCustomer, eq(bookingInvitations.method, 'REQUEST'), or(inArray(claims.status, ['cancelled', 'preempted']), and(eq(claims.status, 'confirmed'), gt(claims.sequence, bookingInvitations.sequence)))))
    .limit(limit);
  let cancels = 0;
  for (const b of due) {
    const ended = b.status !== 'confirmed';
    const sequence = ended ? b.sentSequence + 1 : b.sequence;
    const [claimed] = await db
      .update(bookingInvitations)
      .set({ method: ended ? 'CANCEL' : 'REQUEST', sequence, sentAt: now, sent: ended ? b.sent : snapshot(b) })
      .where(and(eq(bookingInvitations.claimId, b.id), eq(bookingInvitations.method, 'REQUEST'), eq(bookingInvitations.sequence, b.sentSequence)))
      .returning();
    if (!claimed) continue;
    const common = { uid: b.uid, sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', location: b.location, video: readyVideo(b), now };
    if (ended) {
      cancels++;
      // Only who was invited hears it is off (someone added since never got the invitation).
      const invited = b.sent ? new Set(b.sent.attendees) : null;
      await mailAll(db, b, { method: 'CANCEL', ...common, reason: b.reason }, invited ? b.attendees.filter((a) => invited.has(a.email.toLowerCase())) : b.attendees);
      continue;
    }
    const plan = updatePlan(b, b.sent);
    await mailAll(db, b, { method: 'REQUEST', ...common }, plan.invite);
    await mailAll(db, b, { method: 'REQUEST', update: true, ...common, reason: plan.moved ? b.reason : null }, plan.update);
  }
  return { requests: newBookings.length, cancels, updates: due.length - cancels };
}

/**
 * People removed from a booking (PATCH /v1/bookings/{id}) whose invitation reached them: a
 * METHOD:CANCEL with the booking's UID and its new revision as SEQUENCE, to them only,
 * in the organizing owner's zone. Nothing when no invitation was sent yet (or it was cancelled).
 */
export async function mailRemovedAttendees(
  db: Executor,
  b: { row: { id: string; startAt: Date; endAt: Date; title: string | null; sequence: number }; ownerEmail: string; ownerName: string | null; ownerTimeZone: string },
  removed: { email: string; name?: string | null }[],
  now: Date,
): Promise<void> {
  const [sent] = await db.select({ uid: bookingInvitations.uid, sent: bookingInvitations.sent }).from(bookingInvitations).where(and(eq(bookingInvitations.claimId, b.row.id), eq(bookingInvitations.method, 'REQUEST')));
  if (!sent) return;
  // Only who the invitation reached: someone added and removed between two mails never heard of it.
  const invited = sent.sent ? new Set(sent.sent.attendees) : null;
  const to = invited ? removed.filter((a) => invited.has(a.email.toLowerCase())) : removed;
  if (!to.length) return;
  const i = { method: 'CANCEL' as const, uid: sent.uid, sequence: b.row.sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: to, start: b.row.startAt, end: b.row.endAt, title: b.row.title ?? 'Meeting', reason: 'You were removed from this meeting', now };
  const content = invitationIcs(i);
  for (const a of to) await sendMail(invitationMail(i, a.email, b.ownerTimeZone, content));
}
