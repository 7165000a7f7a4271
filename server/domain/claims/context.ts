import { and, asc, eq, inArray, lte, ne, sql } from 'drizzle-orm';
import { columnList, instantFrom, queryRows, rowMapper } from '@/db/statements';
import type { Executor } from '@/db/client';
import { calendars, claims, meetingClasses, owners } from '@/db/schema';
import { DomainError } from '../errors';
import { getMeetingClass, type MeetingClassRow } from '../meetingClassService';
import { enqueueNotification } from '../notificationService';
import { normalizeEmail } from '../access';
import { ALTERNATIVES_RADIUS_MS, VERDICT_CLAIMS_MARGIN_MS, type OwnerRules } from '../scheduling';
import { loadProviderBusy } from '../calendars/mirror';
import { expireOwnerHolds, loadClaims as loadOwnClaims, type LoadedClaim, type OwnerRef } from './claimStore';

export type { ClaimRow, LoadedClaim } from './claimStore';

/** Active claims of an owner overlapping [from, to), and the busy time of its provider calendars (docs/calendars.md). */
export async function loadClaims(db: Executor, owner: OwnerRef, from: Date, to: Date, now: Date): Promise<LoadedClaim[]> {
  const own = await loadOwnClaims(db, owner, from, to, now);
  const busy = await loadProviderBusy(db, owner, from, to, now);
  return busy.length ? [...own, ...busy] : own;
}

export type OwnerRow = typeof owners.$inferSelect;
export type CalendarRow = typeof calendars.$inferSelect;

/** Claims a decision with alternatives weighs around a request: alternatives reach 72 h either side, daily limits a local day. */
export const ARBITRATION_MARGIN_MS = ALTERNATIVES_RADIUS_MS + VERDICT_CLAIMS_MARGIN_MS;

export function ownerRules(owner: Pick<OwnerRow, 'timeZone' | 'workingHours' | 'hardBlocks' | 'maxDailyMeetingHours'>): OwnerRules {
  return {
    timeZone: owner.timeZone,
    workingHours: owner.workingHours,
    hardBlocks: owner.hardBlocks,
    maxDailyMeetingHours: owner.maxDailyMeetingHours,
  };
}

/** Warnings every accepted claim of this owner carries (the arbiter's, for answers built without it). */
export function rulesWarnings(owner: Pick<OwnerRow, 'workingHours'>): string[] {
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

/**
 * What a scheduling call works with. The owner's password hash and the calendar's provider
 * credentials are not part of it: the hot path never reads them, so it never loads them.
 */
export type SchedulingOwner = Omit<OwnerRow, 'passwordHash'>;
export type SchedulingCalendar = Omit<CalendarRow, 'credentials'>;
export type SchedulingTarget = { owner: SchedulingOwner; calendar: SchedulingCalendar; meetingClass: MeetingClassRow };

const OWNER_OMIT = ['passwordHash'] as const;
const CALENDAR_OMIT = ['credentials'] as const;
const TARGET_COLUMNS = [columnList(owners, 'o', 'o_', OWNER_OMIT), columnList(calendars, 'c', 'c_', CALENDAR_OMIT), columnList(meetingClasses, 'm', 'm_')].join(', ');
const toOwner = rowMapper(owners, 'o_', OWNER_OMIT);
const toCalendar = rowMapper(calendars, 'c_', CALENDAR_OMIT);
const toMeetingClass = rowMapper(meetingClasses, 'm_');

/** $1 customer, $2 email, $3 meeting class, $4 calendar type (when given). */
export function targetStatement(byType: boolean, lock: boolean): string {
  return `select ${TARGET_COLUMNS} from owners o
    join meeting_classes m on m.customer_id = o.customer_id and m.name = $3
    join lateral (select * from calendars c where c.owner_id = o.id and c.status <> 'disconnected' and ${byType ? 'c.type = $4' : 'c.is_primary'}
      order by c.is_primary desc, (c.status = 'active') desc, c.created_at asc limit 1) c on true
    where o.customer_id = $1 and o.email = $2${lock ? ' for update of o' : ''}`;
}
const TARGET_STATEMENTS = [0, 1, 2, 3].map((i) => targetStatement(i >= 2, i % 2 === 1));

/**
 * Owner (optionally locked), calendar and meeting class of a scheduling call,
 * in one statement. When something is missing or unusable, the step-by-step
 * look-up runs instead and throws the error SPEC.md's order implies (meeting
 * class, then owner and calendar, then re-authorisation).
 */
export async function loadTarget(
  db: Executor,
  customerId: string,
  input: { ownerEmail: string; calendarType?: string; meetingClass: string },
  lock: boolean,
): Promise<SchedulingTarget> {
  const params = [customerId, normalizeEmail(input.ownerEmail), input.meetingClass];
  const [raw] = input.calendarType
    ? await queryRows(db, TARGET_STATEMENTS[2 + Number(lock)], [...params, input.calendarType])
    : await queryRows(db, TARGET_STATEMENTS[Number(lock)], params);
  if (raw && raw.c_status !== 'reauth_required') return { owner: toOwner(raw), calendar: toCalendar(raw), meetingClass: toMeetingClass(raw) };
  const meetingClass = await getMeetingClass(db, customerId, input.meetingClass);
  const owner = await findSchedulingOwner(db, customerId, input.ownerEmail, lock);
  const calendar = await resolveCalendar(db, owner, input.calendarType);
  return { owner, calendar, meetingClass };
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
  const expired = owner
    ? (await expireOwnerHolds(db, owner, now)).map((h) => ({
        id: h.id,
        customerId: h.customer_id,
        agentId: h.agent_id,
        startAt: instantFrom(h.start_at),
        endAt: instantFrom(h.end_at),
        expiresAt: instantFrom(h.expires_at),
      }))
    : await sweepDueHolds(db, now);
  for (const hold of expired) {
    if (!hold.agentId) continue;
    await enqueueNotification(db, {
      customerId: hold.customerId,
      agentId: hold.agentId,
      kind: 'hold.expired',
      data: { hold_id: hold.id, start: hold.startAt.toISOString(), end: hold.endAt.toISOString(), expired_at: hold.expiresAt?.toISOString() },
      now,
    });
  }
  return expired.length;
}

async function sweepDueHolds(db: Executor, now: Date) {
  const due = and(eq(claims.kind, 'hold'), eq(claims.status, 'active'), lte(claims.expiresAt, now));
  return db
    .update(claims)
    .set({ status: 'expired', statusReason: 'ttl_elapsed', updatedAt: now })
    .where(inArray(claims.id, db.select({ id: claims.id }).from(claims).where(due).limit(500).for('update', { skipLocked: true })))
    .returning({ id: claims.id, customerId: claims.customerId, agentId: claims.agentId, startAt: claims.startAt, endAt: claims.endAt, expiresAt: claims.expiresAt });
}
