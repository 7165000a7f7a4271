import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db, Executor, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { calendars, claims, meetingClasses, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import { DomainError } from '../errors';
import { isUuid, newId } from '../ids';
import { searchSlots } from '../scheduling';
import { writeAudit } from '../audit';
import { runAnsweredTransaction, type KeyAnswer } from './answeredClaim';
import type { GroupMemberView } from '../notificationService';
import { groupOwnerEmails, membersOf } from './groupMembers';
import { claimMadeWithKey, claimRow, DEFAULT_HOLD_TTL_SECONDS, type NewClaim } from './claimStore';
import { loadAround, loadClaims, loadClaimTarget, loadTargets, lockOwner, ownerRules, requestPolicy, rulesWarnings, type ClaimRow, type SchedulingTarget } from './claimTarget';
import { runClaim } from './claimDecision';
import { groupRunnerFields, ownerQueueKey, runClaimOperation, slotKey, type Answer, type ClaimOperation } from './claimRunner';
import { refuseWithoutLock } from './earlyRefusal';
import type { CalendarGate } from '../calendars/mirror';
import { assertBookingSpan, noSlotsError, validateWindow } from './windows';
import { holdView, type HoldRange, type HoldView } from './views';
import { freeTimeOnly, holdAuditBase, holdWindow, inOwnerOrder, newHold, type WindowFacts } from './windowHold';
import { auditGroupRefusal, decideMembers, refuseGroupWithoutLock } from './groupVerdict';
import { groupWindowNextAvailable } from './groupSearchService';

/**
 * Whom a hold names: one owner (`ownerEmail`), or a group of 2 to 20 (`ownerEmails`, one hold
 * per owner sharing a `group_id`, all or none: docs/groups.md "Group holds and bookings").
 */
type HoldOwners = { ownerEmail: string; ownerEmails?: undefined } | { ownerEmails: string[]; ownerEmail?: undefined };

/** What a hold asks for, whoever it names. */
type HoldAsk = { calendarType?: string; meetingClass: string; ttlSeconds?: number } & (
  | { scope: 'candidate'; candidate: { start: Date; end: Date } }
  | { scope: 'window'; window: { start: Date; end: Date }; durationMinutes: number; coverage?: 'first_fit' | 'all_free' }
);

export type HoldInput = HoldOwners & HoldAsk;

/** A hold's members resolved: every owner named (in the order named), and whether they make a group. */
type MembersInput = HoldAsk & { ownerEmails: string[]; group: boolean };

/**
 * The one hold claim of N >= 1 owners (a single hold is a group of one): a candidate hold
 * (exactly `candidate`) or a window hold, the earliest free stretch of the window that fits for
 * every owner (`first_fit`), or every one (`all_free`: one claim range each, the first on the
 * hold's own row, the others as rows naming it in part_of_hold_id). A window hold takes one path
 * whatever the number of owners (windowHold.ts); only its refusal's words differ. A candidate
 * hold of one owner is decided by runClaim with its alternatives, a group's by decideMembers.
 */
export function holdClaim(actor: AgentActor, input: HoldInput, now: Date, idempotencyKey: string | null, auditDetails?: Record<string, unknown>): ClaimOperation<HoldView> {
  if (input.scope === 'candidate') {
    assertBookingSpan(input.candidate.start, input.candidate.end, 'candidate', 'candidate');
  } else {
    validateWindow(input.window, input.durationMinutes, now);
  }
  const group = input.ownerEmails !== undefined;
  const emails = group ? groupOwnerEmails(actor, input.ownerEmails) : [input.ownerEmail];
  const members: MembersInput = { ...input, ownerEmails: emails, group };
  const candidate = input.scope === 'candidate' ? input.candidate : undefined;
  const owner = { ownerEmail: emails[0], calendarType: input.calendarType, meetingClass: input.meetingClass };
  // A window hold looks for a free stretch instead of one slot: it always goes the locked way.
  const early =
    candidate &&
    (group
      ? (db: Db) => refuseGroupWithoutLock(db, actor, members, candidate, 'hold.create', 'hold', idempotencyKey)
      : (db: Db, gate?: CalendarGate) => refuseWithoutLock(db, { action: 'hold.create', kind: 'hold', actor, input: owner, start: candidate.start, end: candidate.end, now, idempotencyKey }, gate));
  // One owner's candidate hold checks its calendar gate in its pipeline; other holds' gates run first (a group's: every owner's).
  const gated = !!candidate && !group;
  return {
    ...(group ? groupRunnerFields(actor, emails) : { queueKey: ownerQueueKey(actor.customerId, emails[0]) }),
    action: 'hold.create',
    refuseWithoutLock: early,
    gatesCalendars: gated,
    slot: candidate && slotKey(candidate.start, candidate.end),
    run: (tx, gate) => holdInTransaction(tx, actor, members, now, idempotencyKey, gated ? gate : undefined, auditDetails),
  };
}

export async function createHold(db: Db, actor: AgentActor, input: HoldInput, now: Date, idempotencyKey: string | null): Promise<HoldView> {
  return runClaimOperation(db, holdClaim(actor, input, now, idempotencyKey));
}

async function holdInTransaction(
  tx: Tx,
  actor: AgentActor,
  input: MembersInput,
  now: Date,
  idempotencyKey: string | null,
  gate?: CalendarGate,
  auditDetails?: Record<string, unknown>,
): Promise<Answer<HoldView>> {
  const { group } = input;
  const ttlMs = (input.ttlSeconds ?? DEFAULT_HOLD_TTL_SECONDS) * 1000;
  // One owner's candidate hold loads everything in one pipeline (the owner lock first); other holds look wider below.
  const loaded =
    input.scope === 'candidate' && !group ? loadClaimTarget(tx, actor.customerId, { ...input, ownerEmail: input.ownerEmails[0] }, input.candidate.start, input.candidate.end, now, gate) : undefined;
  const [targets, made] = await Promise.all([loaded ? loaded.then((l) => [l.target]) : loadTargets(tx, actor.customerId, input, true), claimMadeWithKey(tx, actor.agentId, idempotencyKey, 'hold', now)]);
  // A group's members, filled in as they are written (each member's answer shows them all).
  const memberViews: GroupMemberView[] | undefined = group ? [] : undefined;
  const view = (target: SchedulingTarget, row: ClaimRow, warnings: string[], parts?: readonly HoldRange[]) =>
    holdView(row, { ownerEmail: target.owner.email, timeZone: target.owner.timeZone, meetingClass: target.meetingClass.name, calendarType: target.calendar.type, now, warnings, parts, members: memberViews });
  if (made && group) {
    if (made.groupId) return { ok: true, value: await getHold(tx, actor, made.id, now) };
  } else if (made) return { ok: true, value: view(targets[0], made, rulesWarnings(targets[0].owner), await holdParts(tx, made)) };

  const groupId = group ? newId(now.getTime()) : undefined;
  const views: HoldView[] = [];
  const answer = (i: number, target: SchedulingTarget, row: ClaimRow, warnings: string[], parts?: readonly HoldRange[]) => {
    views[i] = view(target, row, warnings, parts);
    if (memberViews) memberViews[i] = { owner_email: target.owner.email, hold_id: row.id, status: 'active' };
  };

  if (input.scope === 'window') {
    // The one window-hold path of every hold (windowHold.ts), of one owner or N.
    const { window, durationMinutes } = input;
    const spec = { actor, targets, window, durationMinutes, coverage: input.coverage ?? 'first_fit', ttlMs, now, idempotencyKey, groupId, stamped: !group, auditDetails } as const;
    const held = await holdWindow(tx, spec, (facts) => (groupId ? refuseGroupWindow(tx, spec, groupId, facts) : refuseOwnerWindow(tx, spec, facts)));
    if (!held.ok) return held;
    held.value.forEach(({ target, claim, parts }, i) => answer(i, target, claimRow(claim), rulesWarnings(target.owner), parts));
    return { ok: true, value: views[0] };
  }

  const { start, end } = input.candidate;
  const hold = (target: SchedulingTarget): NewClaim =>
    newHold({ actor, target, scope: 'candidate', ttlMs, now, idempotencyKey, groupId, stamped: !group }, start, end, (end.getTime() - start.getTime()) / 60_000);
  if (!groupId) {
    const [target] = targets;
    const r = await runClaim(tx, { action: 'hold.create', target, policy: requestPolicy(actor, target), claim: hold(target), now, around: (await loaded!).around, auditDetails });
    return r.ok ? { ok: true, value: view(target, r.row, r.warnings) } : r;
  }
  const arounds = await Promise.all(targets.map((t) => loadAround(tx, t.owner.id, start, end, now)));
  const plans = targets.map((target, i) => ({ target, policy: requestPolicy(actor, target), around: arounds[i] }));
  const refused = await decideMembers(tx, actor, 'hold.create', groupId, plans, input.candidate, idempotencyKey, now);
  if (refused) return { ok: false, error: refused };
  const soFar = new Set<string>();
  for (const p of inOwnerOrder(plans)) {
    const r = await runClaim(tx, { action: 'hold.create', target: p.target, policy: p.policy, claim: hold(p.target), now, around: p.around, preemptedSoFar: soFar });
    // The same facts decided above: a refusal here means they changed under the lock; roll back all.
    if (!r.ok) throw r.error;
    answer(targets.indexOf(p.target), p.target, r.row, r.warnings);
  }
  return { ok: true, value: views[0] };
}

/** What a refused window hold is answered from: the hold asked for and its owners. */
type WindowAsked = { actor: AgentActor; targets: readonly SchedulingTarget[]; window: { start: Date; end: Date }; durationMinutes: number; now: Date; idempotencyKey: string | null; auditDetails?: Record<string, unknown> };

/** One owner's refused window hold: the search's reason, its next_available, and the reject audit row. */
async function refuseOwnerWindow(tx: Tx, asked: WindowAsked, { arounds, policies }: WindowFacts): Promise<DomainError> {
  const { actor, window, durationMinutes, now, idempotencyKey } = asked;
  const [target] = asked.targets;
  const common = { rules: ownerRules(target.owner), claims: arounds[0], now: now.getTime(), durationMinutes, request: policies[0] };
  const search = searchSlots({ ...common, window: { start: window.start.getTime(), end: window.end.getTime() }, maxResults: 1 });
  const reason = search.noSlots?.reason_code ?? 'NO_FREE_SLOTS';
  const error = await noSlotsError(reason, { ...common, window, lookaheadHours: 72, loadClaims: (from, to) => loadClaims(tx, target.owner.id, from, to, now) }, search.warnings);
  defer(
    tx,
    writeAudit(tx, { ...holdAuditBase(actor, target, idempotencyKey, now), outcome: 'reject', reason: `NO_SLOTS_AVAILABLE:${reason}`, start: window.start, end: window.end, details: asked.auditDetails }),
  );
  return error;
}

/** A group's refused window hold: the owners without free time (or none in common), the next slot that suits them all, one audit row each. */
async function refuseGroupWindow(tx: Tx, asked: WindowAsked, groupId: string, { perOwner }: WindowFacts): Promise<DomainError> {
  const { actor, targets, window, durationMinutes, now, idempotencyKey } = asked;
  const refusing = targets.filter((_, i) => !perOwner[i].length);
  const reasons = new Map(refusing.map((t) => [t.owner.email, 'NO_FREE_SLOTS']));
  auditGroupRefusal(tx, actor, 'hold.create', groupId, targets, new Set(reasons.keys()), window, reasons, idempotencyKey, now);
  // The next slot that suits every owner (the collective search), free time only as this hold.
  const next = await groupWindowNextAvailable(tx, actor, targets, { window, durationMinutes }, now, freeTimeOnly);
  return new DomainError('NO_SLOTS_AVAILABLE', refusing.length ? `No free slots in the window for ${refusing.map((t) => t.owner.email).join(', ')}` : 'No stretch of the window is free for every owner', {
    extra: { reason_code: 'NO_FREE_SLOTS', ...next, owners: (refusing.length ? refusing : targets).map((t) => ({ owner_email: t.owner.email, reason: refusing.length ? 'NO_FREE_SLOTS' : 'NO_COMMON_FREE_TIME' })) },
  });
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
