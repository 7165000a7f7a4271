import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { claims, owners, publicMeetingTypes, waitlistEntries } from '@/db/schema';
import { mailLocale } from '@/i18n/mail';
import { log } from '@/server/log';
import { sendMail } from '../../email';
import { waitlistOfferMessage } from '../../email/waitlistMessages';
import { entryPageUrl, openEntryToken } from './entryToken';

/** How many offers' mails one call sends at most (the sweeper sends the rest). */
const MAX_MAILS_PER_CALL = 50;

/**
 * The offer's mail to a requester (docs/public-scheduling.md "Waitlist"). The offer is made in
 * the transaction that frees the time, and a mail cannot be taken back, so it goes out after
 * COMMIT: the operation that offered calls this once it committed (offerFreed answered that a
 * mail is due), and the sweeper calls it each round for any left over (a crash between COMMIT
 * and the mail, an SMTP failure). Each entry is taken by setting offer_mailed_at first, so two
 * callers never mail one offer twice; a failed send clears it again for the next round. An offer
 * whose hold is no longer active is not mailed.
 */
export async function mailOffers(db: Db, now: Date = new Date()): Promise<number> {
  const due = await db
    .select({ id: waitlistEntries.id })
    .from(waitlistEntries)
    .where(and(isNotNull(waitlistEntries.requesterEmail), eq(waitlistEntries.status, 'offered'), isNull(waitlistEntries.offerMailedAt)))
    .orderBy(asc(waitlistEntries.offeredAt))
    .limit(MAX_MAILS_PER_CALL);
  let sent = 0;
  for (const { id } of due) {
    const [e] = await db
      .update(waitlistEntries)
      .set({ offerMailedAt: now })
      .where(and(eq(waitlistEntries.id, id), isNull(waitlistEntries.offerMailedAt)))
      .returning();
    if (!e?.holdId) continue;
    const [held] = await db
      .select({ start: claims.startAt, end: claims.endAt, expiresAt: claims.expiresAt, status: claims.status, title: publicMeetingTypes.title, ownerName: owners.name, ownerZone: owners.timeZone })
      .from(claims)
      .innerJoin(owners, eq(owners.id, claims.ownerId))
      .innerJoin(publicMeetingTypes, eq(publicMeetingTypes.id, e.meetingTypeId!))
      .where(eq(claims.id, e.holdId));
    if (!held || held.status !== 'active' || !held.expiresAt || held.expiresAt <= now) continue;
    const message = waitlistOfferMessage(
      e.requesterEmail!,
      { title: held.title, ownerName: held.ownerName, timeZone: e.requesterTimeZone ?? held.ownerZone, offer: { start: held.start, end: held.end }, expiresAt: held.expiresAt },
      entryPageUrl(e.baseUrl!, openEntryToken(e.tokenSealed!)),
      mailLocale(e.requesterLocale),
    );
    const out = await sendMail(message);
    if (out.delivered) sent++;
    else {
      log.warn('waitlist offer mail failed; retried by the sweeper', { entryId: e.id, error: out.error });
      await db.update(waitlistEntries).set({ offerMailedAt: null }).where(eq(waitlistEntries.id, e.id));
    }
  }
  return sent;
}
