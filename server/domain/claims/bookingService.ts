import { videoLinkOf } from '../calendars/videoLinks';
import type { BookingVideoLinkRow, VideoProvider } from '@/db/schema';
import { withSpan } from '@/server/observability/tracing';
import { localSpan } from '../scheduling';
import { and, eq } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { calendars, claims, meetingClasses, owners, type AttendeeJson } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid, newId } from '../ids';
import { getMeetingClass } from '../meetingClassService';
import { membersOf } from './groupMembers';
import { claimMadeWithKey } from './claimStore';
import { loadAround, loadClaimTarget, loadConfirmAround, rulesWarnings, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { lockHoldForConfirm, type LockedHold } from '@/db/hot/holds';
import { requestPolicy, runClaim } from './claimDecision';
import { ClaimRedirect, ownerQueueKey, runClaimOperation, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { refuseWithoutLock } from './earlyRefusal';
import { holdParts } from './holdService';
import { holdDecisionStands } from './standingDecision';
import { recordConfirm } from '@/server/observability/metrics';
import { bookingView, holdStatus, type BookingView, type HoldRange } from './views';
import { assertBookingSpan } from './windows';
import { approvalForHold, approvalRequired } from '../approvals/policyService';
import { holdForApproval, requestApprovalOnHold, type PendingApprovalView } from './heldRequest';

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
/** A hold's confirm: the slot, the class and the booking's details. */
export type ConfirmInput = BookingDetails & { start: Date; end: Date; meetingClass?: string; video?: VideoSetting | null };

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

/**
 * POST /v1/bookings/{hold_id}/confirm: promote a hold to a booking. Candidate
 * holds need their exact slot; window holds a slot of their duration inside
 * the held window. Arbitration runs again (with the hold itself set aside) when
 * anything the hold's decision was taken on has changed since; otherwise the
 * decision stands (standingDecision.ts). Either way the promotion is atomic.
 */
export function confirmClaim(
  actor: AgentActor,
  holdId: string,
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
  opts: { groupsUnchecked?: boolean } = {},
): ClaimOperation<BookingView | PendingApprovalView> {
  return { queueKey: `hold:${holdId}`, action: 'hold.confirm', run: (tx) => confirmInTransaction(tx, actor, holdId, input, now, idempotencyKey, !!opts.groupsUnchecked) };
}

export async function confirmHold(
  db: Db,
  actor: AgentActor,
  holdId: string,
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
): Promise<BookingView | PendingApprovalView> {
  return runClaimOperation(db, confirmClaim(actor, holdId, input, now, idempotencyKey));
}

async function confirmInTransaction(
  tx: Tx,
  actor: AgentActor,
  holdId: string,
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
  groupsUnchecked: boolean,
): Promise<Answer<BookingView | PendingApprovalView>> {
  // One pipeline behind BEGIN: the owner lock, then the hold locked with its calendar and
  // classes, then (under that lock) the hold owner's due holds expired and the claims and
  // provider busy time around the slot, the reads runClaim would otherwise send next.
  const valid = isUuid(holdId);
  const locking = valid ? withSpan('claim.lock_wait', { 'customer.id': actor.customerId }, () => lockHoldForConfirm(tx, holdId, actor.customerId, input.meetingClass)) : undefined;
  const around = valid && input.end > input.start ? loadConfirmAround(tx, { customerId: actor.customerId, holdId }, input.start, input.end, now) : undefined;
  around?.catch(() => {}); // handled here; awaited by confirmLocked or below
  // In the same pipeline: an owner's approval rule covering this agent and class, or a request already filed on the hold (docs/api.md "Approval policies").
  const approval = valid ? approvalForHold(tx, { customerId: actor.customerId, holdId, agentId: actor.agentId, meetingClass: input.meetingClass }) : undefined;
  approval?.catch(() => {});
  try {
    const locked = await locking;
    // Not a single hold's id, but it may name a group hold (a member's id, or a group_id, which
    // no claim row has): the caller confirms through the group path (confirmAny, groupLifecycle.ts).
    if (groupsUnchecked && valid && (!locked || (locked.hold.groupId && !locked.hold.partOfHoldId))) throw new ClaimRedirect('the id may name a group hold');
    return await confirmLocked(tx, actor, locked, input, now, idempotencyKey, around, approval);
  } finally {
    // Whatever the answer, the reads (and the expiry's notifications) finish inside the transaction.
    await Promise.all([around?.catch(() => {}), approval?.catch(() => {})]);
  }
}

async function confirmLocked(
  tx: Tx,
  actor: AgentActor,
  locked: LockedHold | undefined,
  input: ConfirmInput,
  now: Date,
  idempotencyKey: string | null,
  around: Promise<{ around: LoadedClaim[]; read: boolean }> | undefined,
  approval: Promise<{ required: boolean; proposalId: string | null }> | undefined,
): Promise<Answer<BookingView | PendingApprovalView>> {
  if (!locked) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
  const { owner, hold: row, calendar } = locked;
  assertOwnerInScope(actor, owner.email);
  const status = holdStatus(row, now);
  const made = status === 'promoted' ? await claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'booking', now) : undefined;
  if (made && made.id === row.promotedBookingId) {
    return {
      ok: true,
      value: bookingView(made, { ownerEmail: owner.email, timeZone: owner.timeZone, meetingClass: locked.holdClassName, calendarType: calendar.type, preemptedIds: await preemptedBy(tx, made.id), warnings: rulesWarnings(owner), video: await videoLinkOf(tx, made.id) }),
    };
  }
  const { target, parts } = await confirmTarget(tx, actor, locked, input, now);
  const { meetingClass } = target;
  // An owner's approval policy covers it (or the hold already waits for the owner): the hold waits instead of becoming a booking.
  const held = await approval;
  if (held?.required || held?.proposalId) return { ok: true, value: await requestApprovalOnHold(tx, { actor, target, hold: row, input, now, idempotencyKey, filed: held.proposalId }) };
  // A series' hold becomes an occurrence of the series (docs/arbitration.md "Recurring series").
  const claim = { ...newBooking({ actor, ownerId: owner.id, calendarId: calendar.id, meetingClassId: meetingClass.id, start: input.start, end: input.end, now, idempotencyKey, holdId: row.id }, input), seriesId: row.seriesId };
  // The hold's decision stands when nothing it was taken on has changed since (the versions
  // came with the locks above; docs/arbitration.md "Confirm: when the hold's decision stands"):
  // promoted as decided. Otherwise arbitration re-runs on the claims around (due holds expired)
  // with the hold set aside. The reads around are awaited either way: they fail closed on a
  // provider calendar that cannot be trusted (docs/calendars.md).
  const decisionStands = holdDecisionStands(row, { owner, meetingClass, agentId: actor.agentId, start: input.start, end: input.end, now });
  recordConfirm(decisionStands);
  const loaded = await around;
  // Not read when the versions matched: a confirm arbitrating after all reads them now (one more round trip, never on the standing path).
  const claimsAround = decisionStands || loaded?.read ? loaded?.around : await loadAround(tx, owner.id, input.start, input.end, now);
  const r = await runClaim(tx, { action: 'booking.confirm', target, policy: requestPolicy(actor, target), claim, now, around: claimsAround, releaseHoldParts: parts.length > 0, decisionStands, video: input.video });
  if (!r.ok) return r;
  return { ok: true, value: bookingView(r.row, { ownerEmail: owner.email, timeZone: owner.timeZone, meetingClass: meetingClass.name, calendarType: calendar.type, preemptedIds: r.preemptedIds, preemptedClaims: r.preemptedClaims, warnings: r.warnings, video: r.video }) };
}

/**
 * A locked hold a confirm may promote, and what its booking takes: refused unless active (its
 * status's error), the slot inside the hold, its calendar usable, the class the confirm names
 * (or the hold's). `parts`: an all_free window hold's further ranges.
 */
export async function confirmTarget(tx: Tx, actor: AgentActor, locked: LockedHold, input: ConfirmInput, now: Date): Promise<{ target: SchedulingTarget; parts: HoldRange[] }> {
  const { owner, hold: row, calendar } = locked;
  const status = holdStatus(row, now);
  if (status === 'promoted') throw new DomainError('HOLD_ALREADY_PROMOTED', 'This hold was already confirmed into a booking', { extra: { booking_id: row.promotedBookingId } });
  if (status === 'expired') throw new DomainError('HOLD_EXPIRED', 'The hold expired before it was confirmed');
  if (status !== 'active') throw new DomainError('HOLD_NOT_ACTIVE', status === 'preempted' ? 'The hold was preempted by a higher-priority meeting' : 'The hold was released');
  // An all_free window hold: the slot may lie in any of its ranges; the others are released with the promotion.
  const parts = await holdParts(tx, row);
  assertSlotInHold(row, input.start, input.end, owner.timeZone, parts);
  if (calendar.status === 'reauth_required') throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendar.type} calendar of ${owner.email} needs to be re-authorised`);
  if (calendar.status === 'disconnected') throw new DomainError('CALENDAR_NOT_FOUND', `The ${calendar.type} calendar of ${owner.email} was disconnected`);
  // A named class that does not exist: getMeetingClass throws its error.
  const meetingClass = locked.meetingClass ?? (await getMeetingClass(tx, actor.customerId, input.meetingClass!));
  return { target: { owner, calendar, meetingClass }, parts };
}

export function assertSlotInHold(hold: ClaimRow, start: Date, end: Date, timeZone: string, parts: readonly HoldRange[] = []) {
  const s = start.getTime();
  const e = end.getTime();
  if (hold.holdScope === 'candidate') {
    if (s !== hold.startAt.getTime() || e !== hold.endAt.getTime()) {
      throw new DomainError('SLOT_OUTSIDE_HOLD', 'A candidate hold confirms only its exact start and end', { extra: { held_window: localSpan(hold.startAt, hold.endAt, timeZone) } });
    }
    return;
  }
  const duration = (hold.durationMinutes ?? 0) * 60_000;
  const ranges = [hold, ...parts];
  if (e - s !== duration || !ranges.some((r) => s >= r.startAt.getTime() && e <= r.endAt.getTime())) {
    const extra: Record<string, unknown> = { held_window: localSpan(hold.startAt, hold.endAt, timeZone), duration_minutes: hold.durationMinutes };
    if (parts.length) extra.held_windows = ranges.sort((a, b) => a.startAt.getTime() - b.startAt.getTime()).map((r) => localSpan(r.startAt, r.endAt, timeZone));
    throw new DomainError('SLOT_OUTSIDE_HOLD', `Confirm a slot of exactly ${hold.durationMinutes} minutes inside ${parts.length ? 'one of the held windows' : 'the held window'}`, { extra });
  }
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
