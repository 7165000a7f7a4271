import { withSpan } from '@/server/observability/tracing';
import { eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claimFactsAround, expireHolds, nextHoldExpiry as nextActiveHoldExpiry, type OwnerRef } from '@/db/hot/claims';
import { loadTargetRows, pickCalendar, type TargetCalendar, type TargetOwner } from '@/db/hot/target';
import { owners } from '@/db/schema';
import { DomainError } from '../errors';
import { metrics, secondsSince } from '@/server/observability/metrics';
import { getMeetingClass, type MeetingClassRow } from '../meetingClassService';
import { enqueueNotification } from '../notificationService';
import { hasPermission, normalizeEmail, type AgentActor } from '../access';
import { ALTERNATIVES_RADIUS_MS, blocksWithCheckpoints, bufferMs, VERDICT_CLAIMS_MARGIN_MS, type OwnerRules, type RequestPolicy } from '../scheduling';

import { loadProviderBusy, type CalendarGate } from '../calendars/mirror';
import { noteFreed } from './freed';
import { loadClaims as loadOwnClaims, loadedClaims, type LoadedClaim } from './claimStore';

export type { ClaimRow, LoadedClaim } from './claimStore';

/**
 * Active claims of an owner overlapping [from, to), and the busy time of its
 * provider calendars from the synced mirror (docs/calendars.md). Both are sent
 * together, so on a pipelined connection they cost one round trip. With `gate`,
 * the calendar gate's check too (CalendarGateNeeded).
 */
export async function loadClaims(db: Executor, owner: OwnerRef, from: Date, to: Date, now: Date, gate?: CalendarGate): Promise<LoadedClaim[]> {
  const [own, busy] = await Promise.all([loadOwnClaims(db, owner, from, to, now), loadProviderBusy(db, owner, from, to, now, gate)]);
  return busy.length ? [...own, ...busy] : own;
}

export type OwnerRow = typeof owners.$inferSelect;

/** Claims a decision with alternatives weighs around a request: alternatives reach 72 h either side, daily limits a local day. */
export const ARBITRATION_MARGIN_MS = ALTERNATIVES_RADIUS_MS + VERDICT_CLAIMS_MARGIN_MS;

export function ownerRules(owner: Pick<OwnerRow, 'timeZone' | 'workingHours' | 'hardBlocks' | 'maxDailyMeetingHours' | 'bufferExternalEvents' | 'dateOverrides' | 'outOfOffice'>): OwnerRules {
  return {
    timeZone: owner.timeZone,
    workingHours: owner.workingHours,
    hardBlocks: blocksWithCheckpoints(owner.hardBlocks),
    maxDailyMeetingHours: owner.maxDailyMeetingHours,
    bufferExternalEvents: owner.bufferExternalEvents,
    dateOverrides: owner.dateOverrides,
    outOfOffice: owner.outOfOffice,
  };
}

/** Warnings every accepted claim of this owner carries (the arbiter's, for answers built without it). */
export function rulesWarnings(owner: Pick<OwnerRow, 'workingHours'>): string[] {
  return owner.workingHours ? [] : ['WORKING_HOURS_NOT_CONFIGURED'];
}

export async function lockOwner(db: Executor, ownerId: string): Promise<OwnerRow> {
  const asked = process.hrtime.bigint();
  const [owner] = await db.select().from(owners).where(eq(owners.id, ownerId)).for('update');
  metrics().claimLockWait.observe(secondsSince(asked));
  return owner;
}

/** What a scheduling call works with (db/hot/target.ts: without the owner's password hash or the calendar's credentials). */
type SchedulingOwner = TargetOwner;
export type SchedulingCalendar = TargetCalendar;
export type SchedulingTarget = { owner: SchedulingOwner; calendar: SchedulingCalendar; meetingClass: MeetingClassRow };

/**
 * An owner that does not exist, for this customer: OWNER_NOT_FOUND, the one code every operation
 * answers for it (schedule rules, search, holds, bookings, groups); CALENDAR_NOT_FOUND is only
 * for an owner that exists without a usable calendar (docs/api.md "Errors").
 */
function ownerNotFound(email: string): DomainError {
  return new DomainError('OWNER_NOT_FOUND', `No calendar owner with email ${email}`);
}

function noCalendar(ownerEmail: string, calendarType: string | undefined): DomainError {
  return new DomainError('CALENDAR_NOT_FOUND', calendarType ? `${ownerEmail} has no connected ${calendarType} calendar` : `${ownerEmail} has no active primary calendar`);
}

/** A resolved calendar needing re-authorisation fails closed. */
function usable(calendar: SchedulingCalendar, ownerEmail: string): SchedulingCalendar {
  if (calendar.status === 'reauth_required') {
    throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendar.type} calendar of ${ownerEmail} needs to be re-authorised; refusing to use stale or revoked access`);
  }
  return calendar;
}

/** The calendar a call on this owner books on (the rule is db/hot/target.ts's calendarPick). */
export async function resolveCalendar(db: Executor, owner: Pick<OwnerRow, 'id' | 'email'>, calendarType: string | undefined): Promise<SchedulingCalendar> {
  const calendar = await pickCalendar(db, owner.id, calendarType);
  if (!calendar) throw noCalendar(owner.email, calendarType);
  return usable(calendar, owner.email);
}

/**
 * The one loader of claim targets (docs/groups.md "How a group is loaded"): every owner named
 * (in the order named), each with the calendar it books on, and the meeting class, in one
 * statement for all owners. With `lock`, the owner rows are locked FOR UPDATE in owner-id order
 * (the one order of every claim, so two claims sharing owners cannot deadlock; FOR UPDATE
 * serialises every claim decision of one owner, since daily limits and preemption span several
 * rows, which the exclusion constraint cannot see). Errors come in this order: the meeting
 * class, then the first owner (in the order named) that does not exist (OWNER_NOT_FOUND) or has
 * no usable calendar (CALENDAR_NOT_FOUND, CALENDAR_REAUTH_REQUIRED).
 */
export async function loadTargets(
  db: Executor,
  customerId: string,
  input: { ownerEmails: readonly string[]; calendarType?: string; meetingClass: string },
  lock: boolean,
): Promise<SchedulingTarget[]> {
  const emails = input.ownerEmails.map(normalizeEmail);
  const query = { emails, meetingClass: input.meetingClass, calendarType: input.calendarType };
  const asked = lock ? process.hrtime.bigint() : 0n;
  // Locked: the owner row locks a claim decision waits for (its span, docs/operations.md "Traces").
  const rows = lock ? await withSpan('claim.lock_wait', { 'customer.id': customerId }, () => loadTargetRows(db, customerId, query, true)) : await loadTargetRows(db, customerId, query, false);
  // The locking statement's time is the owner locks' wait (its reads are index lookups).
  if (lock) metrics().claimLockWait.observe(secondsSince(asked));
  // getMeetingClass throws the missing class's error.
  const meetingClass = rows.find((r) => r.meetingClass)?.meetingClass ?? (await getMeetingClass(db, customerId, input.meetingClass));
  const byEmail = emails.length === 1 ? undefined : new Map(rows.map((r) => [r.owner.email, r]));
  return emails.map((email) => {
    const row = byEmail ? byEmail.get(email) : rows[0];
    if (!row) throw ownerNotFound(email);
    if (!row.calendar) throw noCalendar(row.owner.email, input.calendarType);
    return { owner: row.owner, calendar: usable(row.calendar, row.owner.email), meetingClass };
  });
}

/** loadTargets of one owner (a claim of one member). */
export async function loadTarget(db: Executor, customerId: string, input: { ownerEmail: string; calendarType?: string; meetingClass: string }, lock: boolean): Promise<SchedulingTarget> {
  const [target] = await loadTargets(db, customerId, { ownerEmails: [input.ownerEmail], calendarType: input.calendarType, meetingClass: input.meetingClass }, lock);
  return target;
}

/** When the next active hold expires, or null (the idle sweeper wakes by then; docs/operations.md "Idle"). */
export function nextHoldExpiry(db: Executor): Promise<Date | null> {
  return nextActiveHoldExpiry(db);
}

/**
 * Flip holds whose time to live has passed to `expired` and tell their
 * agents. Correctness never depends on it (expiry is judged against the clock
 * everywhere); it frees the exclusion constraint for new claims. With an
 * owner (inside a claim transaction holding, or first taking, the owner
 * lock): that owner's due holds. Without (the sweeper): up to 500 due holds,
 * skipping rows another transaction holds, so it never waits on, or deadlocks
 * with, a decision in progress; it takes them next time.
 */
export async function expireDueHolds(db: Executor, owner: OwnerRef | null, now: Date): Promise<number> {
  const expired = await expireHolds(db, owner, now);
  // Their time goes to the waitlist before this transaction commits (docs/arbitration.md "Waitlist").
  noteFreed(db, now, expired.map((h) => ({ ownerId: h.ownerId, start: h.startAt, end: h.endAt, holdId: h.partOfHoldId ?? h.id })));
  for (const hold of expired) {
    // A further range of an all_free hold expires with its hold, which alone is announced.
    if (!hold.agentId || hold.partOfHoldId) continue;
    await enqueueNotification(db, {
      customerId: hold.customerId,
      agentId: hold.agentId,
      kind: 'hold.expired',
      data: { hold_id: hold.id, start: hold.startAt.toISOString(), end: hold.endAt.toISOString(), expired_at: hold.expiresAt?.toISOString() },
      now,
      actor: { kind: 'system' },
    });
  }
  return expired.length;
}

/**
 * Expire the owner's due holds and load the claims within `margin` of [start, end), in one
 * round trip (the update runs first). The default is what a verdict weighs
 * (VERDICT_CLAIMS_MARGIN_MS); a rejection loads the wider range its alternatives need
 * (runClaim).
 */
export function loadAround(tx: Executor, owner: OwnerRef, start: Date, end: Date, now: Date, margin = VERDICT_CLAIMS_MARGIN_MS, gate?: CalendarGate): Promise<LoadedClaim[]> {
  return Promise.all([
    expireDueHolds(tx, owner, now),
    loadClaims(tx, owner, new Date(start.getTime() - margin), new Date(end.getTime() + margin), now, gate),
  ]).then(([, around]) => around);
}

/**
 * A confirm's reads around its slot, by its hold (one pipeline with the locks): due holds
 * expired, the claims around and the provider busy time. When the hold's decision is current
 * (its stamp equals the owner's and class's versions) the statements return no claims and no
 * busy instances, only the calendars for the fail-closed check: `read` is false, and a confirm
 * that arbitrates after all (another slot, another agent, a passed start) reads them again
 * (docs/arbitration.md "Confirm: when the hold's decision stands").
 */
export async function loadConfirmAround(tx: Executor, owner: { customerId: string; holdId: string }, start: Date, end: Date, now: Date): Promise<{ around: LoadedClaim[]; read: boolean }> {
  const from = new Date(start.getTime() - VERDICT_CLAIMS_MARGIN_MS);
  const to = new Date(end.getTime() + VERDICT_CLAIMS_MARGIN_MS);
  const [, facts, busy] = await Promise.all([expireDueHolds(tx, owner, now), claimFactsAround(tx, owner, from, to), loadProviderBusy(tx, owner, from, to, now)]);
  const own = loadedClaims(facts, now);
  return { around: busy.length ? [...own, ...busy] : own, read: facts.length > 0 };
}

/**
 * A claim on an owner named by email (direct booking, candidate hold): the
 * locked owner with its calendar and meeting class, and the claims around
 * [start, end) with due holds expired, sent as one pipeline. The owner lock
 * is taken first, so the rest reads under it. Errors are loadTarget's (and, with
 * `gate`, CalendarGateNeeded).
 */
export async function loadClaimTarget(
  tx: Executor,
  customerId: string,
  input: { ownerEmail: string; calendarType?: string; meetingClass: string },
  start: Date,
  end: Date,
  now: Date,
  gate?: CalendarGate,
): Promise<{ target: SchedulingTarget; around: LoadedClaim[] }> {
  const owner = { customerId, email: normalizeEmail(input.ownerEmail) };
  const [target, around] = await Promise.all([loadTarget(tx, customerId, input, true), loadAround(tx, owner, start, end, now, VERDICT_CLAIMS_MARGIN_MS, gate)]);
  return { target, around };
}

/** The policy a request of this actor on this target is arbitrated with: the class's priority, preemption and buffers, the agent's right to preempt. */
export function requestPolicy(actor: Pick<AgentActor, 'permissions'>, target: SchedulingTarget, policyOverride?: 'never' | 'preempt_lower'): RequestPolicy {
  return {
    priority: target.meetingClass.priority,
    preemptPolicy: policyOverride ?? target.meetingClass.preemptPolicy,
    agentCanPreempt: hasPermission(actor, 'preempt'),
    // The class's buffers (docs/arbitration.md "Buffers").
    ...bufferMs(target.meetingClass.bufferBeforeMinutes, target.meetingClass.bufferAfterMinutes),
    // What the booking schedules when accepted (docs/reliability.md "Reminders").
    reminderOffsetsMinutes: target.meetingClass.reminderOffsetsMinutes,
  };
}
