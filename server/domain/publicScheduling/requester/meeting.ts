import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { runTransaction } from '@/db/hot/driver';
import { bookingProposals, claims, meetingClasses, owners, publicMeetingTypes } from '@/db/schema';
import { writeAudit } from '../../audit';
import { lockOwner, mailOffers, noteFreed, offerFreed } from '../../claims';
import { mailLocale, mailTranslations } from '@/i18n/mail';
import type { Locale } from '@/i18n/locales';
import { invitationIcs, UNTITLED } from '../../calendars/invitationIcs';
import { bookingUid } from '../../calendars/sync';
import { videoLinkOf } from '../../calendars/videoLinks';
import { requesterCancelledMessage, sendMail } from '../../email';
import { DomainError } from '../../errors';
import { sha256Hex } from '../../ids';
import { enqueueNotification } from '../../notificationService';
import { localSpan } from '../../scheduling/localSpan';
import { expireLapsed } from '../review/expiry';
import { proposalRowByToken } from './status';

/**
 * A booked public meeting as its requester reaches it through the status
 * token (docs/public-scheduling.md "Status page"): its calendar file and its
 * cancellation. Both answer only while the proposal is booked and its
 * booking confirmed.
 */
type ProposalRow = typeof bookingProposals.$inferSelect;
type ClaimRow = typeof claims.$inferSelect;

function notCancellable(why: string): DomainError {
  return new DomainError('not_cancellable', why);
}

async function bookingOf(db: Executor, p: ProposalRow, lock: boolean): Promise<ClaimRow | null> {
  if (p.status !== 'booked' || !p.bookingId) return null;
  const q = db.select().from(claims).where(eq(claims.id, p.bookingId)).limit(1);
  const [row] = lock ? await q.for('update') : await q;
  return row ?? null;
}

/**
 * The booking a status token's actions act on (docs/public-scheduling.md "Repeating weekly"):
 * the proposal's booking; for a weekly series, its next week that is still booked and has not
 * started, so the page still offers "Cancel" and "Ask to move" once the first week is past (the
 * first week when none is left).
 */
export async function actingBooking(db: Executor, p: ProposalRow, now: Date, lock = false): Promise<ClaimRow | null> {
  const booking = await bookingOf(db, p, lock);
  if (!booking?.seriesId) return booking;
  const q = db
    .select()
    .from(claims)
    .where(and(eq(claims.seriesId, booking.seriesId), eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), gt(claims.startAt, now)))
    .orderBy(asc(claims.startAt))
    .limit(1);
  const [next] = lock ? await q.for('update') : await q;
  return next ?? booking;
}

/** Whether the requester may still cancel: booked, the booking confirmed, and not yet started. */
export function requesterMayCancel(p: Pick<ProposalRow, 'status'>, booking: Pick<ClaimRow, 'status' | 'startAt'> | null, now: Date): boolean {
  return p.status === 'booked' && booking !== null && booking.status === 'confirmed' && booking.startAt > now;
}

/**
 * "Add to calendar": the booked meeting as an iCalendar file (METHOD:PUBLISH)
 * titled for the requester ("<meeting type> with <owner>", in the language of their request,
 * docs/public-scheduling.md "Languages"; the booking's own title names the requester, written
 * for the owner's calendar) and with the meeting type's location and
 * description. Like every public answer it carries no internal id and no
 * owner email: no ORGANIZER or ATTENDEE, and a UID derived one-way from the
 * booking's (stable across downloads, so importing twice updates one event).
 * Anything but a confirmed booking: not_found (the page offers no file then).
 */
function requesterTitle(what: string | null, ownerName: string | null, locale: Locale): string {
  const t = mailTranslations('mailIcs', locale);
  const title = !what || what === UNTITLED ? t('meeting') : what;
  return t('summary', { owned: ownerName ? 'yes' : 'no', owner: ownerName ?? '', title });
}

export async function bookedMeetingIcs(db: Db, token: string, now: Date): Promise<{ filename: string; content: string }> {
  const p = await proposalRowByToken(db, token);
  const booking = await bookingOf(db, p, false);
  if (!booking || booking.status !== 'confirmed') throw new DomainError('not_found', 'No booked meeting');
  const [owner] = await db.select({ name: owners.name }).from(owners).where(eq(owners.id, booking.ownerId));
  const [type] = p.meetingTypeId ? await db.select({ title: publicMeetingTypes.title, location: publicMeetingTypes.location, description: publicMeetingTypes.description }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  const link = await videoLinkOf(db, booking.id);
  const content = invitationIcs({
    method: 'PUBLISH',
    video: link?.status === 'ready' && link.joinUrl ? { provider: link.provider, url: link.joinUrl } : null,
    uid: `${sha256Hex(`requester-file:${bookingUid(booking.id)}`).slice(0, 40)}@agent-scheduler`,
    sequence: 0,
    attendees: [],
    start: booking.startAt,
    end: booking.endAt,
    title: requesterTitle(type?.title ?? booking.title, owner?.name ?? null, mailLocale(p.requesterLocale)),
    location: type?.location ?? null,
    description: type?.description ?? null,
    now,
  });
  return { filename: 'meeting.ics', content };
}

/**
 * "Cancel this meeting": the requester cancels their booked meeting (before
 * it starts), with an optional reason. In one owner-locked transaction the
 * booking becomes cancelled (the time is free again), the decision is
 * audited (`booking.cancel`, no agent), the agent whose booking it is hears
 * `booking.cancelled`, and the proposal becomes `cancelled`. After commit
 * the owner gets a mail in their zone; attendees get the CANCEL of their
 * invitation from the invitation sweep (docs/calendars.md "Invitations").
 * A collective type's meeting (docs/public-scheduling.md "Several hosts") is
 * one group: every host's booking is cancelled, audited and mailed alike.
 */
export async function cancelBookedMeeting(db: Db, token: string, reason: string | null, now: Date): Promise<void> {
  const why = reason?.trim() || null;
  // runTransaction: the waitlist's offer places its hold with deferred statements (docs/arbitration.md "Waitlist").
  const out = await runTransaction(db, async (tx) => {
    const first = await proposalRowByToken(tx, token);
    // A collective type's meeting (docs/public-scheduling.md "Several hosts"): every host's booking
    // goes, their rows locked in owner-id order as a group claim locks them.
    const hostIds = first.hostOwnerIds?.length ? [...new Set([first.ownerId, ...first.hostOwnerIds])].sort() : [first.ownerId];
    const hosts = new Map<string, Awaited<ReturnType<typeof lockOwner>>>();
    for (const id of hostIds) {
      const o = await lockOwner(tx, id);
      if (o) hosts.set(id, o);
    }
    const p = await expireLapsed(tx, await proposalRowByToken(tx, token, true), now);
    const booking = await actingBooking(tx, p, now, true);
    if (!requesterMayCancel(p, booking, now) || !booking) throw notCancellable('Only a booked meeting that has not started can be cancelled');
    // A weekly series (docs/public-scheduling.md "Repeating weekly"): every week still booked and not started goes; past weeks stay.
    const members = booking.groupId
      ? await tx.select().from(claims).where(and(eq(claims.groupId, booking.groupId), eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'))).for('update')
      : booking.seriesId
        ? await tx.select().from(claims).where(and(eq(claims.seriesId, booking.seriesId), eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), gt(claims.startAt, now))).for('update')
        : [booking];
    await tx.update(claims).set({ status: 'cancelled', statusReason: why ?? 'Cancelled by the requester', updatedAt: now }).where(inArray(claims.id, members.map((m) => m.id)));
    await tx.update(bookingProposals).set({ status: 'cancelled', updatedAt: now }).where(eq(bookingProposals.id, p.id));
    // A request to move it that still waits goes with it (docs/public-scheduling.md "Asking to move").
    await tx
      .update(bookingProposals)
      .set({ status: 'withdrawn', updatedAt: now })
      .where(and(inArray(bookingProposals.movesBookingId, members.map((m) => m.id)), eq(bookingProposals.status, 'pending_review')));
    const [cls] = booking.meetingClassId ? await tx.select({ name: meetingClasses.name }).from(meetingClasses).where(eq(meetingClasses.id, booking.meetingClassId)) : [];
    const told: { email: string; name: string | null; timeZone: string }[] = [];
    for (const member of members) {
      const owner = hosts.get(member.ownerId) ?? (await lockOwner(tx, member.ownerId));
      // Each host is mailed once (a series' weeks are one owner's).
      if (!told.some((t) => t.email === owner.email)) told.push({ email: owner.email, name: owner.name, timeZone: owner.timeZone });
      await writeAudit(tx, {
        customerId: member.customerId,
        agentId: null,
        ownerId: owner.id,
        ownerEmail: owner.email,
        action: 'booking.cancel',
        outcome: 'accept',
        reason: why ?? 'cancelled by the requester',
        meetingClass: cls?.name ?? null,
        start: member.startAt,
        end: member.endAt,
        holdId: member.holdId,
        bookingId: member.id,
        details: { by: 'requester', ...(member.groupId ? { group_id: member.groupId } : {}), ...(member.seriesId ? { series_id: member.seriesId } : {}) },
        at: now,
      });
      if (member.agentId) {
        await enqueueNotification(tx, {
          customerId: member.customerId,
          agentId: member.agentId,
          kind: 'booking.cancelled',
          data: { booking_id: member.id, owner_email: owner.email, ...localSpan(member.startAt, member.endAt, owner.timeZone), reason: why ?? null, cancelled_by: 'requester', ...(member.groupId ? { group_id: member.groupId } : {}), ...(member.seriesId ? { series_id: member.seriesId } : {}) },
          now,
          ...(p.requesterEmail ? { actor: { kind: 'requester' as const, email: p.requesterEmail } } : {}),
        });
      }
    }
    noteFreed(tx, now, members.map((m) => ({ ownerId: m.ownerId, start: m.startAt, end: m.endAt })));
    const mailDue = await offerFreed(tx);
    return { told, booking, p, mailDue };
  });
  // A requester offered the time hears of it once the offer committed (claims/waitlist/offerMail.ts).
  if (out.mailDue) await mailOffers(db);
  for (const owner of out.told) {
    await sendMail(
      requesterCancelledMessage(
        owner.email,
        { title: out.booking.title, ownerName: owner.name, start: out.booking.startAt, end: out.booking.endAt, timeZone: owner.timeZone, requester: out.p.requesterName ?? out.p.requesterEmail ?? 'The requester' },
        why,
      ),
    );
  }
}
