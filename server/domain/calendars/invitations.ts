import { and, eq, gt, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingInvitations, bookingProposals, bookingVideoLinks, claims, owners, publicMeetingTypes, type SentInvitation, type VideoProvider } from '@/db/schema';
import { sendMail } from '../email';
import { invitationMail } from './invitationMail';
import { bookingUid } from './sync';
import { invitationIcs, UNTITLED } from './invitationIcs';
import { dueColumns, mailAll, type Due } from './invitationDelivery';
import { sendDueSeriesInvitations } from './seriesInvitations';

/**
 * ICS invitations to a booking's attendees through the mailer
 * (docs/calendars.md "Invitations"): METHOD:REQUEST with ORGANIZER (the
 * owner), one ATTENDEE per attendee, SEQUENCE 0 and the booking's stable
 * UID once it is confirmed; METHOD:CANCEL with the same UID and the next
 * SEQUENCE once it is cancelled or preempted; METHOD:REQUEST again, same UID, with the
 * booking's revision as SEQUENCE (claims.sequence) once it was moved or its details edited,
 * to whom it concerns (updatePlan: people added are invited, people kept hear of a change of
 * time, title, place or video link, the reason as COMMENT with its move only; docs/api.md "Reschedule").
 * An occurrence of a recurring series is invited as part of its series (seriesInvitations.ts).
 * Sent by a sweep task after the
 * booking committed (mail never holds a claim transaction), recorded in
 * booking_invitations so each is sent once. Only bookings made in the last
 * 24 h are invited (older ones predate the feature or were already due).
 */

/** How long a new booking's invitation waits for its video link to be made (then it goes without). */
const VIDEO_WAIT_MS = 10 * 60_000;
type VideoCols = { videoProvider: VideoProvider | null; videoStatus: string | null; videoUrl: string | null };
const readyVideo = (b: VideoCols) => (b.videoProvider && b.videoStatus === 'ready' && b.videoUrl ? { provider: b.videoProvider, url: b.videoUrl } : null);

/** What an invitation mail of `b` says now, kept in booking_invitations.sent. */
function snapshot(b: Due & { location: string | null } & VideoCols): SentInvitation {
  return { attendees: b.attendees.map((a) => a.email.toLowerCase()), start: b.startAt.toISOString(), end: b.endAt.toISOString(), title: b.title ?? UNTITLED, location: b.location, video: readyVideo(b)?.url ?? null };
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
    ...dueColumns,
    location: publicMeetingTypes.location,
    typeTitle: publicMeetingTypes.title,
    videoProvider: bookingVideoLinks.provider,
    videoStatus: bookingVideoLinks.status,
    videoUrl: bookingVideoLinks.joinUrl,
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
    .where(and(ofCustomer, eq(claims.kind, 'booking'), isNull(claims.seriesId), eq(claims.status, 'confirmed'), gt(claims.endAt, now), gt(claims.createdAt, new Date(now.getTime() - 86_400_000)), isNull(bookingInvitations.claimId), sql`jsonb_array_length(${claims.attendees}) > 0`, or(isNull(bookingVideoLinks.claimId), ne(bookingVideoLinks.status, 'pending'), lt(bookingVideoLinks.createdAt, new Date(now.getTime() - VIDEO_WAIT_MS)))))
    .limit(limit);
  for (const b of newBookings) {
    const uid = bookingUid(b.id);
    // Record first: a crash between the two loses one courtesy mail rather than sending it twice.
    const [claimed] = await db.insert(bookingInvitations).values({ claimId: b.id, uid, sequence: b.sequence, method: 'REQUEST', sentAt: now, sent: snapshot(b) }).onConflictDoNothing().returning();
    if (!claimed) continue;
    await mailAll(db, b, { method: 'REQUEST', uid, sequence: b.sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? UNTITLED, location: b.location, video: readyVideo(b), now });
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
    const common = { uid: b.uid, sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: b.attendees, start: b.startAt, end: b.endAt, title: b.title ?? UNTITLED, location: b.location, video: readyVideo(b), now };
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
  // A series' occurrences are invited as one series (seriesInvitations.ts), never one by one.
  const series = await sendDueSeriesInvitations(db, now, limit, customerId);
  return { requests: newBookings.length + series.requests, cancels: cancels + series.cancels, updates: due.length - cancels + series.updates };
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
  const i = { method: 'CANCEL' as const, uid: sent.uid, sequence: b.row.sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees: to, start: b.row.startAt, end: b.row.endAt, title: b.row.title ?? UNTITLED, reason: 'You were removed from this meeting', now };
  const content = invitationIcs(i);
  for (const a of to) await sendMail(invitationMail(i, a.email, b.ownerTimeZone, content));
}
