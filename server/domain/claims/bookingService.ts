import { videoLinkOf } from '../calendars/videoLinks';
import type { BookingVideoLinkRow, VideoProvider } from '@/db/schema';
import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { calendars, claims, meetingClasses, owners, type AttendeeJson } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid, newId } from '../ids';
import { membersOf } from './groupMembers';
import { claimMadeWithKey } from './claimStore';
import { loadClaimTarget, requestPolicy, rulesWarnings, type ClaimRow } from './claimTarget';
import { runClaim } from './claimDecision';
import { ownerQueueKey, runClaimOperation, slotKey, type ClaimOperation } from './claimRunner';
import { refuseWithoutLock } from './earlyRefusal';
import { bookingView, type BookingView } from './views';
import { assertBookingSpan } from './windows';
import { approvalRequired } from '../approvals/policyService';
import { holdForApproval, type PendingApprovalView } from './heldRequest';

export type BookingDetails = {
  attendees?: { email: string; name?: string }[];
  title?: string;
  description?: string;
};

function attendeesJson(list: BookingDetails['attendees']): AttendeeJson[] {
  return (list ?? []).map((a) => ({ email: normalizeEmail(a.email), name: a.name ?? null, response: 'needs_action' }));
}

export function newBooking(
  base: { actor: AgentActor; ownerId: string; calendarId: string; meetingClassId: string; start: Date; end: Date; now: Date; idempotencyKey: string | null; holdId?: string },
  details: BookingDetails,
) {
  return {
    id: newId(base.now.getTime()),
    customerId: base.actor.customerId,
    ownerId: base.ownerId,
    calendarId: base.calendarId,
    agentId: base.actor.agentId,
    meetingClassId: base.meetingClassId,
    kind: 'booking' as const,
    status: 'confirmed' as const,
    startAt: base.start,
    endAt: base.end,
    holdId: base.holdId ?? null,
    source: 'agent' as const,
    title: details.title ?? null,
    description: details.description ?? null,
    attendees: attendeesJson(details.attendees),
    idempotencyKey: base.idempotencyKey,
    createdAt: base.now,
    updatedAt: base.now,
  };
}

/** A video link asked for a booking (docs/calendars.md "Video links"), recorded in the booking's transaction. */
export type VideoSetting = { provider: VideoProvider; url?: string | null };
export type BookingInput = BookingDetails & {
  ownerEmail: string;
  calendarType?: string;
  meetingClass: string;
  start: Date;
  end: Date;
  video?: VideoSetting | null;
};

/**
 * POST /v1/bookings: arbitrate and book directly (no hold). `auditDetails`: facts the
 * decision's audit row carries (a pool's choice, server/domain/pools/poolScheduling.ts).
 */
export function bookingClaim(
  actor: AgentActor,
  input: BookingInput,
  now: Date,
  idempotencyKey: string | null,
  auditDetails?: Record<string, unknown>,
): ClaimOperation<BookingView | PendingApprovalView> {
  assertBookingSpan(input.start, input.end);
  return {
    queueKey: ownerQueueKey(actor.customerId, input.ownerEmail),
    action: 'booking.create',
    refuseWithoutLock: (db, gate) => refuseWithoutLock(db, { action: 'booking.create', kind: 'booking', actor, input, start: input.start, end: input.end, now, idempotencyKey }, gate),
    gatesCalendars: true,
    slot: slotKey(input.start, input.end),
    run: async (tx, gate) => {
      // One pipeline: the owner lock comes first on the connection; the owner's approval rules are read under it.
      const [{ target, around }, made, held] = await Promise.all([
        loadClaimTarget(tx, actor.customerId, input, input.start, input.end, now, gate),
        claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now),
        approvalRequired(tx, { customerId: actor.customerId, ownerEmail: input.ownerEmail, agentId: actor.agentId, meetingClass: input.meetingClass }),
      ]);
      const answer = (row: ClaimRow, preemptedIds: string[], warnings: string[], preemptedClaims?: { id: string; kind: 'hold' | 'booking' }[], video?: BookingVideoLinkRow | null) =>
        bookingView(row, { ownerEmail: target.owner.email, timeZone: target.owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, preemptedIds, preemptedClaims, warnings, video });
      if (made && !made.holdId) return { ok: true, value: answer(made, await preemptedBy(tx, made.id), rulesWarnings(target.owner), undefined, await videoLinkOf(tx, made.id)) };
      // An owner's approval policy covers it: the time is held and the request waits for the owner (docs/api.md "Approval policies").
      if (held) return holdForApproval(tx, { actor, target, around, input, now, idempotencyKey, auditDetails });
      const claim = newBooking({ actor, ownerId: target.owner.id, calendarId: target.calendar.id, meetingClassId: target.meetingClass.id, start: input.start, end: input.end, now, idempotencyKey }, input);
      const r = await runClaim(tx, { action: 'booking.create', target, policy: requestPolicy(actor, target), claim, now, around, auditDetails, video: input.video });
      if (!r.ok) return r;
      return { ok: true, value: answer(r.row, r.preemptedIds, r.warnings, r.preemptedClaims, r.video) };
    },
  };
}

export async function createBooking(db: Db, actor: AgentActor, input: BookingInput, now: Date, idempotencyKey: string | null): Promise<BookingView | PendingApprovalView> {
  return runClaimOperation(db, bookingClaim(actor, input, now, idempotencyKey));
}

type BookingRecord = { row: ClaimRow; ownerEmail: string; timeZone: string; meetingClass: string | null; calendarType: string };

async function findBooking(db: Executor, actor: AgentActor, bookingId: string, lock = false): Promise<BookingRecord> {
  if (!isUuid(bookingId)) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  const q = db
    .select({ row: claims, ownerEmail: owners.email, timeZone: owners.timeZone, meetingClass: meetingClasses.name, calendarType: calendars.type })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .leftJoin(calendars, eq(calendars.id, claims.calendarId))
    .where(and(eq(claims.id, bookingId), eq(claims.customerId, actor.customerId), eq(claims.kind, 'booking')))
    .limit(1);
  const [found] = lock ? await q.for('update', { of: claims }) : await q;
  if (!found) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  assertOwnerInScope(actor, found.ownerEmail);
  return { ...found, calendarType: found.calendarType ?? 'internal' };
}

export async function preemptedBy(db: Executor, bookingId: string): Promise<string[]> {
  const rows = await db.select({ id: claims.id }).from(claims).where(and(eq(claims.preemptedByClaimId, bookingId), eq(claims.kind, 'booking')));
  return rows.map((r) => r.id);
}

export async function getBooking(db: Executor, actor: AgentActor, bookingId: string, now = new Date()): Promise<BookingView> {
  const b = await findBooking(db, actor, bookingId);
  const members = b.row.groupId ? (await membersOf(db, [b.row], 'booking', now)).get(b.row.groupId) : undefined;
  return bookingView(b.row, { ...b, preemptedIds: await preemptedBy(db, b.row.id), members, video: await videoLinkOf(db, b.row.id) });
}
