import { and, desc, eq } from 'drizzle-orm';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import type { Db, Executor } from '@/db/client';
import { bookingProposals, claims, publicMeetingTypes, type ProposalStatus } from '@/db/schema';
import { DomainError, invalidField } from '../../errors';
import { newId } from '../../ids';
import { canonicalTimeZone } from '../../scheduling';
import { findLinkByIdOrAlias, findMeetingType } from '../admin';
import { afterPendingReview } from '../review/instant';
import { writeProposalAudit } from '../review/proposalAudit';
import { acceptableSlots, DEFAULT_SUGGESTION_DAYS, MAX_SUGGESTED_TIMES, MAX_SUGGESTION_DAYS, type PublicTypeContext } from './schedule';
import { proposalRowByToken } from './status';
import { actingBooking } from './meeting';
import { expireLapsed } from '../review/expiry';

/**
 * "Ask to move" (docs/public-scheduling.md "Asking to move"): the requester of a booked
 * meeting picks a new suggested time on the status page. The request is a proposal of its
 * own (origin public, `pending_review` at once: the status token proves who asks, and the
 * contact was confirmed for the meeting) that names the booking it would move
 * (`moves_booking_id`). The owner approves it on the review page, which reschedules the
 * booking in place (review/reviewDecision.ts, the reschedule claim); on a book-instantly
 * type the arbiter's acceptance moves it at once (review/instant.ts). The request has no
 * token of its own: the meeting's status page shows it.
 */
type ProposalRow = typeof bookingProposals.$inferSelect;
type ClaimRow = typeof claims.$inferSelect;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function notMovable(why: string): DomainError {
  return new DomainError('not_movable', why);
}

function movePending(): DomainError {
  return new DomainError('move_pending', 'A request to move this meeting is already waiting for review');
}

/** A request to move as the status page shows it: the asked time and where the request stands (the latest one). */
export type MoveRequestView = { status: ProposalStatus; start: string; end: string; decline_reason: string | null; updated_at: string };

type MoveContext = { p: ProposalRow; booking: ClaimRow; type: PublicTypeContext; durationMinutes: number };

/** Whether the meeting may be asked to move: booked, its booking confirmed and not started. */
function requesterMayMove(p: Pick<ProposalRow, 'status'>, booking: Pick<ClaimRow, 'status' | 'startAt'> | null, now: Date): boolean {
  return p.status === 'booked' && booking !== null && booking.status === 'confirmed' && booking.startAt > now;
}

/**
 * The booked meeting a status token names, with its meeting type as the booking pages reach
 * it (the link live, the type enabled and published; its visibility is not asked again: the
 * token holder booked it). Anything else is 409 not_movable.
 */
async function moveContext(db: Executor, p: ProposalRow, now: Date): Promise<MoveContext> {
  // A weekly series: its next week not started (docs/public-scheduling.md "Repeating weekly").
  const booking = await actingBooking(db, p, now);
  if (!requesterMayMove(p, booking, now) || !booking) throw notMovable('Only a booked meeting that has not started can be asked to move');
  const [typeRow] = p.meetingTypeId && p.linkId ? await db.select({ slug: publicMeetingTypes.slug }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, p.meetingTypeId)) : [];
  const link = typeRow && p.linkId ? await findLinkByIdOrAlias(db, p.linkId) : null;
  const type = link && typeRow ? await findMeetingType(db, link.link.id, typeRow.slug) : null;
  if (!link || !type || !type.type.enabled || !type.type.published) throw notMovable('This meeting was not booked through a meeting type that is still offered; ask the calendar owner directly');
  return { p, booking, type: { link, type, requester: null }, durationMinutes: Math.round((booking.endAt.getTime() - booking.startAt.getTime()) / MINUTE) };
}

/** The newest request to move this booking, if any. */
export async function latestMoveRequest(db: Executor, bookingId: string): Promise<ProposalRow | null> {
  const [row] = await db.select().from(bookingProposals).where(eq(bookingProposals.movesBookingId, bookingId)).orderBy(desc(bookingProposals.createdAt), desc(bookingProposals.id)).limit(1);
  return row ?? null;
}

export function moveRequestView(row: ProposalRow): MoveRequestView {
  return {
    status: row.status,
    start: row.requestedStart!.toISOString(),
    end: row.requestedEnd!.toISOString(),
    decline_reason: row.status === 'declined' ? row.declineReason : null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The times the meeting could move to: the meeting type's suggested times (the same slot code
 * and rules as the booking page: grid, working hours, minimum notice, only genuinely free
 * times) for the booking's own length, with the booking itself set aside and its current time
 * left out. Window as the suggestions' (default 14 days, at most 31).
 */
export async function moveSuggestions(db: Db, token: string, q: { from?: Date; to?: Date }, now: Date): Promise<{ duration_minutes: number; suggested_times: { start: string; end: string }[] }> {
  const ctx = await moveContext(db, await expireLapsed(db, await proposalRowByToken(db, token), now), now);
  const from = q.from ?? now;
  const to = q.to ?? new Date(Math.max(from.getTime(), now.getTime()) + DEFAULT_SUGGESTION_DAYS * DAY);
  if (!(to > from) || to.getTime() - from.getTime() > MAX_SUGGESTION_DAYS * DAY) throw invalidField('to', `must be after from, at most ${MAX_SUGGESTION_DAYS} days later`);
  const slots = await acceptableSlots(db, ctx.type, ctx.durationMinutes, { start: from, end: to }, now, MAX_SUGGESTED_TIMES + 1, { moving: ctx.booking.id });
  const times = slots.filter((s) => s.start.getTime() !== ctx.booking.startAt.getTime()).slice(0, MAX_SUGGESTED_TIMES);
  return { duration_minutes: ctx.durationMinutes, suggested_times: times.map((s) => ({ start: s.start.toISOString(), end: s.end.toISOString() })) };
}

/** Is `window` one of the times moveSuggestions would offer now? Else 409 time_unavailable. */
async function assertMoveSuggestable(db: Executor, ctx: MoveContext, window: { start: Date; end: Date }, now: Date): Promise<void> {
  const unavailable = new DomainError('time_unavailable', 'The requested time is not one of the currently suggested times; fetch them again');
  if (window.end.getTime() - window.start.getTime() !== ctx.durationMinutes * MINUTE || window.start.getTime() === ctx.booking.startAt.getTime()) throw unavailable;
  const [slot] = await acceptableSlots(db, ctx.type, ctx.durationMinutes, window, now, 1, { moving: ctx.booking.id });
  if (!slot || slot.start.getTime() !== window.start.getTime()) throw unavailable;
}

export type MoveRequestInput = { start: Date; end: Date; note?: string | null; timeZone?: string };

/**
 * The requester asks to move their booked meeting to `start`-`end`, one of the move
 * suggestions, with an optional note for the owner. In one transaction (the meeting's own
 * proposal locked, so two clicks queue) a proposal naming the booking is stored
 * `pending_review` and audited (`proposal.submit` by the requester); a request already
 * waiting is 409 move_pending (the partial unique index has the last word). After commit it
 * goes where every proposal reaching review goes (afterPendingReview): a book-instantly type
 * moves the meeting at once when arbitration accepts it, otherwise the owner is mailed.
 */
export async function requestMove(db: Db, token: string, input: MoveRequestInput, baseUrl: string | undefined, now: Date): Promise<'booked' | 'pending_review'> {
  const first = await expireLapsed(db, await proposalRowByToken(db, token), now);
  const ctx = await moveContext(db, first, now);
  await assertMoveSuggestable(db, ctx, input, now);
  const note = input.note?.trim() || null;
  const zone = input.timeZone ? canonicalTimeZone(input.timeZone) : null;
  const id = newId(now.getTime());
  try {
    await db.transaction(async (tx) => {
      const p = await proposalRowByToken(tx, token, true);
      const booking = await actingBooking(tx, p, now);
      if (!requesterMayMove(p, booking, now) || !booking || booking.id !== ctx.booking.id) throw notMovable('Only a booked meeting that has not started can be asked to move');
      const [waiting] = await tx
        .select({ id: bookingProposals.id })
        .from(bookingProposals)
        .where(and(eq(bookingProposals.movesBookingId, booking.id), eq(bookingProposals.status, 'pending_review')))
        .limit(1);
      if (waiting) throw movePending();
      const [row] = await tx
        .insert(bookingProposals)
        .values({
          id,
          customerId: p.customerId,
          ownerId: p.ownerId,
          origin: 'public',
          linkId: p.linkId,
          meetingTypeId: p.meetingTypeId,
          meetingClassId: booking.meetingClassId ?? p.meetingClassId,
          requesterIdentityId: p.requesterIdentityId,
          status: 'pending_review',
          requesterEmail: p.requesterEmail,
          requesterName: p.requesterName,
          requesterTimeZone: zone ?? p.requesterTimeZone,
          // The meeting's language: the answer to this request is mailed in it (docs/public-scheduling.md "Languages").
          requesterLocale: p.requesterLocale,
          attendees: p.attendees,
          durationMinutes: ctx.durationMinutes,
          requestedStart: input.start,
          requestedEnd: input.end,
          message: note,
          movesBookingId: booking.id,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await writeProposalAudit(tx, row, { action: 'proposal.submit', actor: p.requesterEmail ? { kind: 'requester', email: p.requesterEmail } : { kind: 'system' }, at: now });
    });
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'booking_proposals_one_pending_move_key')) throw movePending();
    throw err;
  }
  return afterPendingReview(db, id, baseUrl, now);
}
