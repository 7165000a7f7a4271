import { and, asc, eq, inArray, lte, ne, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { calendars, claims, meetingClasses, owners } from '@/db/schema';
import { DomainError } from '../errors';
import { getMeetingClass, type MeetingClassRow } from '../meetingClassService';
import { enqueueNotification } from '../notificationService';
import { normalizeEmail } from '../access';
import { isSacred, type Claim, type OwnerRules } from '../scheduling';

export type OwnerRow = typeof owners.$inferSelect;
export type CalendarRow = typeof calendars.$inferSelect;
export type ClaimRow = typeof claims.$inferSelect;

const HOUR = 3_600_000;
/** Claims loaded around a request: alternatives reach 72 h either side, daily limits a local day. */
export const ARBITRATION_MARGIN_MS = 72 * HOUR + 26 * HOUR;

export function ownerRules(owner: OwnerRow): OwnerRules {
  return {
    timeZone: owner.timeZone,
    workingHours: owner.workingHours,
    hardBlocks: owner.hardBlocks,
    maxDailyMeetingHours: owner.maxDailyMeetingHours,
  };
}

/** Warnings every accepted claim of this owner carries (the arbiter's, for answers built without it). */
export function rulesWarnings(owner: OwnerRow): string[] {
  return owner.workingHours ? [] : ['WORKING_HOURS_NOT_CONFIGURED'];
}

/** The owner of a scheduling call; an unknown email has no calendar (CALENDAR_NOT_FOUND). */
export async function findSchedulingOwner(db: Executor, customerId: string, email: string, lock: boolean): Promise<OwnerRow> {
  const q = db
    .select()
    .from(owners)
    .where(and(eq(owners.customerId, customerId), eq(owners.email, normalizeEmail(email))))
    .limit(1);
  // FOR UPDATE serialises every claim decision of one owner: daily limits and
  // preemption span several rows, which the exclusion constraint cannot see.
  const [owner] = lock ? await q.for('update') : await q;
  if (!owner) throw new DomainError('CALENDAR_NOT_FOUND', `No active primary calendar for ${normalizeEmail(email)}`);
  return owner;
}

export async function lockOwner(db: Executor, ownerId: string): Promise<OwnerRow> {
  const [owner] = await db.select().from(owners).where(eq(owners.id, ownerId)).for('update');
  return owner;
}

/**
 * DESIGN.md resolution: `calendar_type` given -> the owner's calendar of that
 * type (primary first); absent -> the primary. Disconnected calendars do not
 * count; a resolved calendar needing re-authorisation fails closed.
 */
export async function resolveCalendar(db: Executor, owner: OwnerRow, calendarType: string | undefined): Promise<CalendarRow> {
  const rows = await db
    .select()
    .from(calendars)
    .where(
      and(
        eq(calendars.ownerId, owner.id),
        ne(calendars.status, 'disconnected'),
        calendarType ? eq(calendars.type, calendarType) : eq(calendars.isPrimary, true),
      ),
    )
    .orderBy(sql`${calendars.isPrimary} desc`, sql`(${calendars.status} = 'active') desc`, asc(calendars.createdAt));
  const calendar = rows[0];
  if (!calendar) {
    throw new DomainError(
      'CALENDAR_NOT_FOUND',
      calendarType ? `${owner.email} has no connected ${calendarType} calendar` : `${owner.email} has no active primary calendar`,
    );
  }
  if (calendar.status === 'reauth_required') {
    throw new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendar.type} calendar of ${owner.email} needs to be re-authorised; refusing to use stale or revoked access`);
  }
  return calendar;
}

export type SchedulingTarget = { owner: OwnerRow; calendar: CalendarRow; meetingClass: MeetingClassRow };

/** Owner (optionally locked), calendar and meeting class of a scheduling call, in the order SPEC.md's errors imply. */
export async function loadTarget(
  db: Executor,
  customerId: string,
  input: { ownerEmail: string; calendarType?: string; meetingClass: string },
  lock: boolean,
): Promise<SchedulingTarget> {
  const meetingClass = await getMeetingClass(db, customerId, input.meetingClass);
  const owner = await findSchedulingOwner(db, customerId, input.ownerEmail, lock);
  const calendar = await resolveCalendar(db, owner, input.calendarType);
  return { owner, calendar, meetingClass };
}

/**
 * Flip the owner's holds whose time to live has passed to `expired` and tell
 * their agents. Correctness never depends on it (expiry is judged against the
 * clock everywhere); it frees the exclusion constraint for new claims.
 */
export async function expireDueHolds(db: Executor, ownerId: string | null, now: Date): Promise<number> {
  const due = and(eq(claims.kind, 'hold'), eq(claims.status, 'active'), lte(claims.expiresAt, now));
  // Per owner (inside a claim transaction holding the owner lock): every due hold.
  // Sweeper (no owner): skip rows another transaction holds, so it never waits
  // on, or deadlocks with, a decision in progress; it takes them next time.
  const where = ownerId
    ? and(eq(claims.ownerId, ownerId), due)
    : inArray(claims.id, db.select({ id: claims.id }).from(claims).where(due).limit(500).for('update', { skipLocked: true }));
  const expired = await db.update(claims).set({ status: 'expired', statusReason: 'ttl_elapsed', updatedAt: now }).where(where).returning();
  for (const hold of expired) {
    if (hold.agentId) {
      await enqueueNotification(db, {
        customerId: hold.customerId,
        agentId: hold.agentId,
        kind: 'hold.expired',
        data: { hold_id: hold.id, start: hold.startAt.toISOString(), end: hold.endAt.toISOString(), expired_at: hold.expiresAt?.toISOString() },
        now,
      });
    }
  }
  return expired.length;
}

export type LoadedClaim = Claim & { row: ClaimRow; className: string | null };

/** Active claims of the owner overlapping [from, to): the exclusion constraint's GiST index answers it. */
function activeInRange(ownerId: string, from: Date, to: Date) {
  return and(
    eq(claims.ownerId, ownerId),
    inArray(claims.status, ['active', 'confirmed']),
    sql`tstzrange(${claims.startAt}, ${claims.endAt}, '[)') && tstzrange(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz, '[)')`,
  );
}

type ClaimFacts = Pick<ClaimRow, 'id' | 'kind' | 'startAt' | 'endAt' | 'holdScope' | 'durationMinutes' | 'expiresAt' | 'createdAt' | 'externalAccepted' | 'source'>;

/** A claim as the pure core sees it, or null for a hold past its expiry. */
function pureClaim(c: ClaimFacts, priority: number | null, sacredAge: number | null, nowMs: number): Claim | null {
  if (c.kind === 'hold' && c.expiresAt && c.expiresAt.getTime() <= nowMs) return null;
  const start = c.startAt.getTime();
  const end = c.endAt.getTime();
  return {
    id: c.id,
    kind: c.kind,
    start,
    end,
    countedMinutes: c.kind === 'hold' && c.holdScope === 'window' && c.durationMinutes ? c.durationMinutes : (end - start) / 60_000,
    // A claim without a class (imported) can never be outranked.
    priority: priority ?? Number.MAX_SAFE_INTEGER,
    sacred: c.kind === 'booking' && isSacred({ createdAt: c.createdAt.getTime(), externalAccepted: c.externalAccepted, source: c.source }, sacredAge, nowMs),
  };
}

/**
 * Active claims of an owner overlapping [from, to), with their full rows (for
 * decisions that change them). Cost follows the claims in range, not history.
 * Holds past their expiry are left out.
 */
export async function loadClaims(db: Executor, ownerId: string, from: Date, to: Date, now: Date): Promise<LoadedClaim[]> {
  const rows = await db
    .select({ claim: claims, priority: meetingClasses.priority, sacredAge: meetingClasses.sacredMeetingAgeHours, className: meetingClasses.name })
    .from(claims)
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .where(activeInRange(ownerId, from, to));
  const nowMs = now.getTime();
  const out: LoadedClaim[] = [];
  for (const { claim, priority, sacredAge, className } of rows) {
    const pure = pureClaim(claim, priority, sacredAge, nowMs);
    if (pure) out.push({ ...pure, row: claim, className });
  }
  return out;
}

/**
 * The same claims for read-only decisions (search, next_available,
 * evaluate): only the columns the pure core needs, which is most of the cost
 * of a wide window (decoding whole rows dominated it).
 */
export async function loadSearchClaims(db: Executor, ownerId: string, from: Date, to: Date, now: Date): Promise<Claim[]> {
  const rows = await db
    .select({
      id: claims.id,
      kind: claims.kind,
      startAt: claims.startAt,
      endAt: claims.endAt,
      holdScope: claims.holdScope,
      durationMinutes: claims.durationMinutes,
      expiresAt: claims.expiresAt,
      createdAt: claims.createdAt,
      externalAccepted: claims.externalAccepted,
      source: claims.source,
      priority: meetingClasses.priority,
      sacredAge: meetingClasses.sacredMeetingAgeHours,
    })
    .from(claims)
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .where(activeInRange(ownerId, from, to));
  const nowMs = now.getTime();
  const out: Claim[] = [];
  for (const r of rows) {
    const pure = pureClaim(r, r.priority, r.sacredAge, nowMs);
    if (pure) out.push(pure);
  }
  return out;
}
