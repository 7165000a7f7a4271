import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { calendars, claims, meetingClasses, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { searchSlots } from '../scheduling';
import { writeAudit } from '../audit';
import { runAnsweredTransaction, type KeyAnswer } from '../answeredClaim';
import { membersOf } from './groupMembers';
import { claimMadeWithKey, claimRow, DEFAULT_HOLD_TTL_SECONDS } from './claimStore';
import { loadClaims, loadClaimTarget, loadTarget, lockOwner, ownerRules, requestPolicy, rulesWarnings, type ClaimRow } from './claimTarget';
import { runClaim } from './claimDecision';
import { ownerQueueKey, runClaimOperation, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { refuseWithoutLock } from './earlyRefusal';
import type { CalendarGate } from '../calendars/mirror';
import { assertBookingSpan, noSlotsError, validateWindow } from './windows';
import { holdView, type HoldRange, type HoldView } from './views';
import { holdAuditBase, holdWindow, newHold } from './windowHold';

export type HoldInput = {
  ownerEmail: string;
  calendarType?: string;
  meetingClass: string;
  ttlSeconds?: number;
} & (
  | { scope: 'candidate'; candidate: { start: Date; end: Date } }
  | { scope: 'window'; window: { start: Date; end: Date }; durationMinutes: number; coverage?: 'first_fit' | 'all_free' }
);

/**
 * Create a candidate hold (exactly `candidate`) or a window hold: the earliest free stretch of
 * the window that fits (`first_fit`), or every one (`all_free`: one claim range each, the first
 * on the hold's own row, the others as rows naming it in part_of_hold_id).
 */
export function holdClaim(actor: AgentActor, input: HoldInput, now: Date, idempotencyKey: string | null, auditDetails?: Record<string, unknown>): ClaimOperation<HoldView> {
  if (input.scope === 'candidate') {
    assertBookingSpan(input.candidate.start, input.candidate.end, 'candidate', 'candidate');
  } else {
    validateWindow(input.window, input.durationMinutes, now);
  }
  const candidate = input.scope === 'candidate' ? input.candidate : undefined;
  return {
    queueKey: ownerQueueKey(actor.customerId, input.ownerEmail),
    action: 'hold.create',
    // A window hold looks for a free stretch instead of one slot: it always goes the locked way.
    refuseWithoutLock: candidate && ((db, gate) => refuseWithoutLock(db, { action: 'hold.create', kind: 'hold', actor, input, start: candidate.start, end: candidate.end, now, idempotencyKey }, gate)),
    // A candidate hold checks the calendar gate in its pipeline; a window hold's gate runs first.
    gatesCalendars: !!candidate,
    slot: candidate && slotKey(candidate.start, candidate.end),
    run: (tx, gate) => holdInTransaction(tx, actor, input, now, idempotencyKey, candidate ? gate : undefined, auditDetails),
  };
}

export async function createHold(db: Db, actor: AgentActor, input: HoldInput, now: Date, idempotencyKey: string | null): Promise<HoldView> {
  return runClaimOperation(db, holdClaim(actor, input, now, idempotencyKey));
}

async function holdInTransaction(
  tx: Tx,
  actor: AgentActor,
  input: HoldInput,
  now: Date,
  idempotencyKey: string | null,
  gate?: CalendarGate,
  auditDetails?: Record<string, unknown>,
): Promise<Answer<HoldView>> {
  const ttl = (input.ttlSeconds ?? DEFAULT_HOLD_TTL_SECONDS) * 1000;
  // Candidate holds load everything in one pipeline (the owner lock first); window holds look wider below.
  const loaded = input.scope === 'candidate' ? loadClaimTarget(tx, actor.customerId, input, input.candidate.start, input.candidate.end, now, gate) : undefined;
  const [target, made] = await Promise.all([
    loaded ? loaded.then((l) => l.target) : loadTarget(tx, actor.customerId, input, true),
    claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'hold', now),
  ]);
  const policy = requestPolicy(actor, target);
  const view = (row: ClaimRow, warnings: string[], parts?: readonly HoldRange[]) =>
    holdView(row, { ownerEmail: target.owner.email, timeZone: target.owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, now, warnings, parts });
  if (made) return { ok: true, value: view(made, rulesWarnings(target.owner), await holdParts(tx, made)) };

  if (input.scope === 'candidate') {
    const { start, end } = input.candidate;
    const claim = newHold({ actor, target, scope: 'candidate', ttlMs: ttl, now, idempotencyKey, stamped: true }, start, end, (end.getTime() - start.getTime()) / 60_000);
    const r = await runClaim(tx, { action: 'hold.create', target, policy, claim, now, around: (await loaded!).around, auditDetails });
    return r.ok ? { ok: true, value: view(r.row, r.warnings) } : r;
  }

  // Window hold: the one window-hold path of every claim (windowHold.ts), here of one owner.
  const { window, durationMinutes } = input;
  const held = await holdWindow(
    tx,
    { actor, targets: [target], window, durationMinutes, coverage: input.coverage ?? 'first_fit', ttlMs: ttl, now, idempotencyKey, stamped: true, auditDetails },
    async ({ arounds, policies }) => {
      const common = { rules: ownerRules(target.owner), claims: arounds[0], now: now.getTime(), durationMinutes, request: policies[0] };
      const search = searchSlots({ ...common, window: { start: window.start.getTime(), end: window.end.getTime() }, maxResults: 1 });
      const reason = search.noSlots?.reason_code ?? 'NO_FREE_SLOTS';
      const error = await noSlotsError(reason, { ...common, window, lookaheadHours: 72, loadClaims: (from, to) => loadClaims(tx, target.owner.id, from, to, now) }, search.warnings);
      defer(
        tx,
        writeAudit(tx, { ...holdAuditBase(actor, target, idempotencyKey, now), outcome: 'reject', reason: `NO_SLOTS_AVAILABLE:${reason}`, start: window.start, end: window.end, details: auditDetails }),
      );
      return error;
    },
  );
  if (!held.ok) return held;
  const [{ claim, parts }] = held.value;
  return { ok: true, value: view(claimRow(claim), rulesWarnings(target.owner), parts) };
}

/** The further ranges of an all_free window hold (none for any other hold, without a query). */
export async function holdParts(db: Executor, row: Pick<ClaimRow, 'id' | 'coverage'>): Promise<HoldRange[]> {
  if (row.coverage !== 'all_free') return [];
  return db.select({ startAt: claims.startAt, endAt: claims.endAt }).from(claims).where(eq(claims.partOfHoldId, row.id)).orderBy(asc(claims.startAt));
}

/** The booked range of each promoted hold among `rows` (holdView shows a promoted hold as its booking). */
export async function promotedBookings(db: Executor, rows: readonly Pick<ClaimRow, 'id' | 'status' | 'promotedBookingId'>[]): Promise<Map<string, HoldRange>> {
  const byBooking = new Map(rows.filter((r) => r.status === 'promoted' && r.promotedBookingId).map((r) => [r.promotedBookingId!, r.id]));
  const out = new Map<string, HoldRange>();
  if (!byBooking.size) return out;
  const booked = await db.select({ id: claims.id, startAt: claims.startAt, endAt: claims.endAt }).from(claims).where(inArray(claims.id, [...byBooking.keys()]));
  for (const b of booked) out.set(byBooking.get(b.id)!, { startAt: b.startAt, endAt: b.endAt });
  return out;
}

type HoldRecord = { row: ClaimRow; ownerEmail: string; timeZone: string; meetingClass: string; calendarType: string; calendarStatus: string };

/** A hold of this customer (foreign and unknown ids answer HOLD_NOT_FOUND), scope-checked. */
async function findHold(db: Executor, actor: AgentActor, holdId: string, lock = false): Promise<HoldRecord> {
  if (!isUuid(holdId)) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
  const q = db
    .select({ row: claims, ownerEmail: owners.email, timeZone: owners.timeZone, meetingClass: meetingClasses.name, calendarType: calendars.type, calendarStatus: calendars.status })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .innerJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .innerJoin(calendars, eq(calendars.id, claims.calendarId))
    .where(and(eq(claims.id, holdId), eq(claims.customerId, actor.customerId), eq(claims.kind, 'hold'), isNull(claims.partOfHoldId)))
    .limit(1);
  const [found] = lock ? await q.for('update', { of: claims }) : await q;
  if (!found) throw new DomainError('HOLD_NOT_FOUND', 'Hold not found');
  assertOwnerInScope(actor, found.ownerEmail);
  return found;
}

export async function getHold(db: Executor, actor: AgentActor, holdId: string, now: Date): Promise<HoldView> {
  const h = await findHold(db, actor, holdId);
  const booking = (await promotedBookings(db, [h.row])).get(h.row.id);
  const members = h.row.groupId ? (await membersOf(db, [h.row], 'hold', now)).get(h.row.groupId) : undefined;
  return holdView(h.row, { ...h, now, booking, parts: booking ? [] : await holdParts(db, h.row), members });
}

/**
 * POST /v1/holds/{id}/extend: an active hold's time to live starts again from now
 * (`ttlSeconds`, within the same 10-3600 bounds as when it was made), every range of an
 * all_free window hold with it. No new decision: the time it holds is unchanged. Refused
 * once it expired (410 HOLD_EXPIRED; the clock decides, swept or not), was promoted (409
 * HOLD_ALREADY_PROMOTED), released or preempted (409 HOLD_NOT_ACTIVE). Audited as hold.extend.
 * `answer`: the request's Idempotency-Key record, stored in the same transaction.
 */
export async function extendHold(db: Db, actor: AgentActor, holdId: string, ttlSeconds: number, now: Date, idempotencyKey: string | null, answer: KeyAnswer | null = null): Promise<HoldView> {
  return runAnsweredTransaction(db, answer, async (tx) => {
    const first = await findHold(tx, actor, holdId);
    await lockOwner(tx, first.row.ownerId);
    const h = await findHold(tx, actor, holdId, true);
    const parts = await holdParts(tx, h.row);
    const status = holdView(h.row, { ...h, now, parts }).status;
    if (status === 'promoted') throw new DomainError('HOLD_ALREADY_PROMOTED', 'The hold was already confirmed into a booking', { extra: { booking_id: h.row.promotedBookingId } });
    if (status === 'expired') throw new DomainError('HOLD_EXPIRED', 'The hold expired before it was extended; make a new hold');
    if (status !== 'active') throw new DomainError('HOLD_NOT_ACTIVE', status === 'preempted' ? 'The hold was preempted by a higher-priority meeting' : 'The hold was released');
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    const [row] = await tx.update(claims).set({ expiresAt, updatedAt: now }).where(eq(claims.id, h.row.id)).returning();
    if (parts.length) await tx.update(claims).set({ expiresAt, updatedAt: now }).where(and(eq(claims.partOfHoldId, h.row.id), eq(claims.status, 'active')));
    await writeAudit(tx, {
      customerId: actor.customerId,
      agentId: actor.agentId,
      ownerId: row.ownerId,
      ownerEmail: h.ownerEmail,
      action: 'hold.extend',
      outcome: 'accept',
      meetingClass: h.meetingClass,
      start: row.startAt,
      end: row.endAt,
      holdId: row.id,
      idempotencyKey,
      details: { expires_at_before: h.row.expiresAt?.toISOString() ?? null, expires_at: expiresAt.toISOString(), ttl_seconds: ttlSeconds },
      at: now,
    });
    return holdView(row, { ...h, now, parts });
  });
}
