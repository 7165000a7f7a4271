import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { runTransaction } from '@/db/hot/driver';
import { claims, meetingClasses, owners } from '@/db/schema';
import type { OwnerActor } from '../adminAudit';
import { writeAudit } from '../audit';
import { lockOwner, mailOffers, noteFreed, offerFreed, ownerCancelGroup, ownerCancelSeries, type CancelScope } from '../claims';
import { DomainError, invalidField } from '../errors';
import { isUuid } from '../ids';
import { enqueueNotification } from '../notificationService';
import { localSpan } from '../scheduling/localSpan';
import { claimDetails, type ClaimDetails } from './details';

/**
 * The owner cancels one of their confirmed bookings from its details in the
 * dashboard (docs/dashboard.md "Calendar"), with a reason in words: the
 * booking ends cancelled with that reason (its history shows it), the agent
 * that made it gets booking.cancelled with the reason, and the attendees get
 * the cancellation mail with it (calendars/invitations.ts). The time is free
 * again at once. Audited as booking.cancel by the owner (no agent).
 *
 * A booking of a group (docs/groups.md) is cancelled for every host: cancel cancels all
 * (ownerCancelGroup), whoever cancels it. An occurrence of a recurring series is cancelled as an
 * agent's cancel with `scope` cancels it (ownerCancelSeries): it alone (the default), it and the
 * later ones, or the whole series; `scope` on a booking outside a series is a 400 on scope.
 */
export async function cancelOwnBooking(db: Db, reviewer: OwnerActor, input: { bookingId: string; reason: string; scope?: CancelScope }, now: Date): Promise<ClaimDetails> {
  const reason = input.reason.trim();
  if (!reason) throw invalidField('reason', 'say why, so the attendees know');
  if (!isUuid(input.bookingId)) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  const id = input.bookingId.toLowerCase();
  const [named] = await db
    .select({ groupId: claims.groupId, seriesId: claims.seriesId })
    .from(claims)
    .where(and(eq(claims.id, id), eq(claims.customerId, reviewer.customerId), eq(claims.ownerId, reviewer.ownerId), eq(claims.kind, 'booking')));
  if (!named) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  if (named.seriesId) {
    await ownerCancelSeries(db, reviewer, id, input.scope ?? 'occurrence', reason, now);
    return claimDetails(db, reviewer, id, now);
  }
  if (input.scope && input.scope !== 'occurrence') throw invalidField('scope', 'the booking is not an occurrence of a recurring series: cancel it without scope');
  if (named.groupId) {
    await ownerCancelGroup(db, reviewer, named.groupId, reason, now);
    return claimDetails(db, reviewer, id, now);
  }
  // runTransaction: the waitlist's offer places its hold with deferred statements (docs/arbitration.md "Waitlist").
  const mailDue = await runTransaction(db, async (tx) => {
    await lockOwner(tx, reviewer.ownerId);
    const [found] = await tx
      .select({ c: claims, className: meetingClasses.name, ownerEmail: owners.email, timeZone: owners.timeZone })
      .from(claims)
      .innerJoin(owners, eq(owners.id, claims.ownerId))
      .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
      .where(and(eq(claims.id, id), eq(claims.customerId, reviewer.customerId), eq(claims.ownerId, reviewer.ownerId), eq(claims.kind, 'booking')))
      .for('update', { of: claims });
    if (!found) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
    const { c } = found;
    if (c.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is already ${c.status}`);
    await tx.update(claims).set({ status: 'cancelled', statusReason: reason, updatedAt: now }).where(eq(claims.id, c.id));
    await writeAudit(tx, {
      customerId: c.customerId,
      agentId: null,
      actor: { kind: 'owner', ownerId: reviewer.ownerId, email: reviewer.email },
      ownerId: c.ownerId,
      ownerEmail: found.ownerEmail,
      action: 'booking.cancel',
      outcome: 'accept',
      reason,
      meetingClass: found.className,
      start: c.startAt,
      end: c.endAt,
      holdId: c.holdId,
      bookingId: c.id,
      at: now,
    });
    if (c.agentId) {
      await enqueueNotification(tx, {
        customerId: c.customerId,
        agentId: c.agentId,
        kind: 'booking.cancelled',
        data: { booking_id: c.id, owner_email: found.ownerEmail, ...localSpan(c.startAt, c.endAt, found.timeZone), reason },
        now,
        actor: { kind: 'owner', email: found.ownerEmail },
      });
    }
    noteFreed(tx, now, [{ ownerId: c.ownerId, start: c.startAt, end: c.endAt }]);
    return offerFreed(tx);
  });
  // A requester offered the time hears of it once the offer committed (claims/waitlist/offerMail.ts).
  if (mailDue) await mailOffers(db);
  return claimDetails(db, reviewer, id, now);
}
