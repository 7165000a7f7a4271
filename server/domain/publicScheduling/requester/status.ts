import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { runTransaction } from '@/db/hot/driver';
import { bookingProposals, claims, contactVerifications, type ProposalStatus } from '@/db/schema';
import { lockOwner, mailOffers, noteFreed, offerFreed } from '../../claims';
import { DomainError } from '../../errors';
import { hashSecret, SECRET_PREFIX } from '../../ids';
import { expireLapsed } from '../review/expiry';
import { requesterActor, writeProposalAudit } from '../review/proposalAudit';
import { publicNotFound, resolveRequester } from './access';

type ProposalRow = typeof bookingProposals.$inferSelect;
export type PublicStatusView = { status: ProposalStatus; updated_at: string };

export function statusView(p: ProposalRow): PublicStatusView {
  return { status: p.status, updated_at: p.updatedAt.toISOString() };
}

/** The proposal a status token names (public origin only, optionally locked), or not_found. */
export function proposalRowByToken(db: Executor, token: string, lock = false): Promise<ProposalRow> {
  return byToken(db, token, lock);
}

async function byToken(db: Executor, token: string, lock: boolean): Promise<ProposalRow> {
  if (!token.startsWith(SECRET_PREFIX.proposalToken)) throw publicNotFound('Booking proposal not found');
  const q = db.select().from(bookingProposals).where(eq(bookingProposals.accessTokenHash, hashSecret(token))).limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row || row.origin !== 'public') throw publicNotFound('Booking proposal not found');
  return row;
}

/**
 * The id of the public proposal a status token names, or null: the key its
 * per-token rate limit counts on (only tokens that exist get one).
 */
export async function proposalIdForToken(db: Executor, token: string): Promise<string | null> {
  if (!token.startsWith(SECRET_PREFIX.proposalToken)) return null;
  const [row] = await db
    .select({ id: bookingProposals.id, origin: bookingProposals.origin })
    .from(bookingProposals)
    .where(eq(bookingProposals.accessTokenHash, hashSecret(token)))
    .limit(1);
  return row && row.origin === 'public' ? row.id : null;
}

/** GET /public/booking-proposals/{token}: status and updated_at; an unverified proposal past 24 h reads (and becomes) expired. */
export async function proposalStatus(db: Db, token: string, bearer: string | null, now: Date): Promise<PublicStatusView> {
  await resolveRequester(db, bearer);
  const row = await byToken(db, token, false);
  return statusView(await expireLapsed(db, row, now));
}

/** The states a requester may still withdraw from. */
export const PENDING_STATUSES: readonly ProposalStatus[] = ['pending_requester_verification', 'pending_review'];

/**
 * POST .../withdraw: a pending proposal becomes withdrawn; anything else (booked included) is 409 not_pending.
 * A request on a held waitlist offer (docs/public-scheduling.md "Waitlist") releases its hold, the
 * owner locked first, and the time goes to the next entry in the same transaction.
 */
export async function withdrawProposal(db: Db, token: string, bearer: string | null, now: Date): Promise<PublicStatusView> {
  await resolveRequester(db, bearer);
  const first = await byToken(db, token, false);
  // runTransaction: the waitlist's offer places its hold with deferred statements.
  const out = await runTransaction(db, async (tx) => {
    if (first.holdId) await lockOwner(tx, first.ownerId);
    const row = await expireLapsed(tx, await byToken(tx, token, true), now);
    if (!PENDING_STATUSES.includes(row.status)) return { error: row.status };
    const [updated] = await tx.update(bookingProposals).set({ status: 'withdrawn', updatedAt: now, expiresAt: null }).where(eq(bookingProposals.id, row.id)).returning();
    await tx.update(contactVerifications).set({ status: 'expired' }).where(and(eq(contactVerifications.proposalId, row.id), eq(contactVerifications.status, 'pending')));
    await writeProposalAudit(tx, updated, { action: 'proposal.withdraw', actor: requesterActor(updated), at: now });
    if (!row.holdId) return { row: updated, mailDue: false };
    const [hold] = await tx
      .update(claims)
      .set({ status: 'released', statusReason: 'withdrawn by the requester', updatedAt: now })
      .where(and(eq(claims.id, row.holdId), eq(claims.status, 'active')))
      .returning();
    if (hold) noteFreed(tx, now, [{ ownerId: hold.ownerId, start: hold.startAt, end: hold.endAt, holdId: hold.id }]);
    return { row: updated, mailDue: await offerFreed(tx) };
  });
  if (out.mailDue) await mailOffers(db);
  // Thrown after commit, so a lazy expiry flip above stays.
  if (out.error) throw new DomainError('not_pending', `The proposal is ${out.error} and can no longer be withdrawn`);
  return statusView(out.row!);
}
