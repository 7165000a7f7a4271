import { eq } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { bookingProposals, contactVerifications, owners, publicLinks, publicMeetingTypes } from '@/db/schema';
import { DomainError } from '../../errors';
import { hashSecret, SECRET_PREFIX } from '../../ids';
import { expireLapsed } from '../review/expiry';
import { afterPendingReview } from '../review/instant';
import { requesterActor, writeProposalAudit } from '../review/proposalAudit';
import { publicNotFound } from './access';
import { statusTokenFor } from './submit';

type VerificationRow = typeof contactVerifications.$inferSelect;
type ProposalRow = typeof bookingProposals.$inferSelect;

async function byToken(db: Executor, token: string): Promise<{ v: VerificationRow; p: ProposalRow }> {
  if (!token.startsWith(SECRET_PREFIX.verificationToken)) throw publicNotFound('Contact verification not found');
  const [row] = await db
    .select({ v: contactVerifications, p: bookingProposals })
    .from(contactVerifications)
    .innerJoin(bookingProposals, eq(bookingProposals.id, contactVerifications.proposalId))
    .where(eq(contactVerifications.tokenHash, hashSecret(token)))
    .limit(1);
  if (!row) throw publicNotFound('Contact verification not found');
  return row;
}

/** The id of the contact verification a token names, or null (the key of its per-token rate limit). */
export async function verificationIdForToken(db: Executor, token: string): Promise<string | null> {
  if (!token.startsWith(SECRET_PREFIX.verificationToken)) return null;
  const [row] = await db.select({ id: contactVerifications.id }).from(contactVerifications).where(eq(contactVerifications.tokenHash, hashSecret(token))).limit(1);
  return row?.id ?? null;
}

/** The same, locked in the order every writer uses: the proposal, then its verification. */
async function lockedByToken(tx: Executor, token: string): Promise<{ v: VerificationRow; p: ProposalRow }> {
  const found = await byToken(tx, token);
  const [p] = await tx.select().from(bookingProposals).where(eq(bookingProposals.id, found.p.id)).for('update');
  const [v] = await tx.select().from(contactVerifications).where(eq(contactVerifications.id, found.v.id)).for('update');
  return { v, p };
}

/** Where a verification stands, as the confirm page shows it. */
export type VerificationState = 'pending' | 'confirmed' | 'expired' | 'closed';

function stateOf(v: VerificationRow, p: ProposalRow, now: Date): VerificationState {
  if (v.status === 'confirmed') return 'confirmed';
  if (p.status === 'withdrawn') return 'closed';
  if (v.status === 'expired' || v.expiresAt <= now || p.status === 'expired') return 'expired';
  if (p.status !== 'pending_requester_verification') return 'closed'; // withdrawn
  return 'pending';
}

/** What the confirm page (GET) shows: the requester's own request, nothing of the owner's but their name. No side effect. */
export async function verificationPage(db: Executor, token: string, now: Date) {
  const { v, p } = await byToken(db, token);
  const [owner] = await db.select({ name: owners.name }).from(owners).where(eq(owners.id, p.ownerId));
  const [type] = p.meetingTypeId ? await db.select({ title: publicMeetingTypes.title }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  const [link] = p.linkId ? await db.select({ defaultLanguage: publicLinks.defaultLanguage }).from(publicLinks).where(eq(publicLinks.id, p.linkId)) : [];
  return {
    state: stateOf(v, p, now),
    email: v.email,
    ownerName: owner?.name ?? null,
    title: type?.title ?? null,
    start: p.requestedStart,
    end: p.requestedEnd,
    statusPath: statusPathFor(token, p),
    /** The link's default language (docs/public-scheduling.md "Languages"): the page speaks it when the request names none of ours. */
    linkDefaultLanguage: link?.defaultLanguage ?? null,
  };
}

/** The status page's path (relative: the page links within the service), when the proposal's status token derives from this verification token. */
function statusPathFor(token: string, p: ProposalRow): string | null {
  const status = statusTokenFor(token);
  return status.hash === p.accessTokenHash ? `/public/booking-proposals/${status.secret}` : null;
}

/**
 * POST /public/contact-verifications/{token}/confirm: the requester proved
 * their email; the proposal goes to the owner's review. Anything but a
 * pending, unexpired verification of a still unverified proposal: 409 not_pending.
 */
export async function confirmContact(db: Db, token: string, now: Date, baseUrl?: string): Promise<{ status: 'pending_review' | 'booked' }> {
  const out = await db.transaction(async (tx) => {
    const { v, p } = await lockedByToken(tx, token);
    const current = await expireLapsed(tx, p, now);
    const state = stateOf(v, current, now);
    if (state !== 'pending') return { error: state };
    await tx.update(contactVerifications).set({ status: 'confirmed', confirmedAt: now }).where(eq(contactVerifications.id, v.id));
    await tx.update(bookingProposals).set({ status: 'pending_review', expiresAt: null, updatedAt: now }).where(eq(bookingProposals.id, p.id));
    await writeProposalAudit(tx, p, { action: 'proposal.contact_verify', actor: requesterActor(p), at: now });
    return { ok: true as const, proposalId: p.id };
  });
  if ('error' in out) {
    const why = out.error === 'confirmed' ? 'already confirmed' : out.error === 'expired' ? 'expired' : 'no longer pending (the request was withdrawn)';
    throw new DomainError('not_pending', `This contact verification is ${why}`);
  }
  // The owner hears of it (one line and the review link), after the commit.
  return { status: await afterPendingReview(db, out.proposalId, baseUrl, now) };
}
