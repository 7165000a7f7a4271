import { videoLinksOf } from '../calendars/videoLinks';
import { and, asc, eq, gt, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { calendars, claims, meetingClasses, owners } from '@/db/schema';
import { parseOwnerScope, resolveOwnerEmail, type AgentActor } from '../access';
import { invalidField } from '../errors';
import { isUuid } from '../ids';
import { preemptedBy } from './bookingService';
import { membersOf } from './groupMembers';
import { promotedBookings } from './holdService';
import { bookingView, holdView, type BookingView, type HoldRange, type HoldView } from './views';

/**
 * Read back what agents did (docs/api.md "Reading back"): the customer's holds or bookings,
 * oldest start first, filtered, with a keyset cursor. The caller's owner scope applies: a
 * user-scoped agent sees only its owner's claims; `owner_email` outside the scope answers
 * owner_scope_denied.
 */
export type ClaimListQuery = {
  ownerEmail?: string;
  from?: Date;
  to?: Date;
  status?: string;
  /** 'me' or an agent id. */
  agent?: string;
  limit: number;
  cursor?: string;
};

function encodeCursor(startAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([startAt.toISOString(), id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (Number.isNaN(date.getTime()) || typeof id !== 'string' || !isUuid(id)) throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw invalidField('cursor', 'Invalid cursor', 'cursor is not one this API returned');
  }
}

async function page(db: Executor, actor: AgentActor, kind: 'hold' | 'booking', q: ClaimListQuery, now: Date) {
  const scoped = Boolean(q.ownerEmail) || parseOwnerScope(actor.ownerScope)?.kind === 'user';
  const ownerEmail = scoped ? resolveOwnerEmail(actor, q.ownerEmail) : undefined;
  // The further ranges of an all_free window hold are read with their hold, never on their own.
  const conds: SQL[] = [eq(claims.customerId, actor.customerId), eq(claims.kind, kind), isNull(claims.partOfHoldId)];
  if (ownerEmail) conds.push(eq(owners.email, ownerEmail));
  if (q.from) conds.push(gt(claims.endAt, q.from));
  if (q.to) conds.push(lt(claims.startAt, q.to));
  if (q.agent) {
    const agentId = q.agent === 'me' ? actor.agentId : q.agent;
    if (!isUuid(agentId)) return { rows: [], next_cursor: null };
    conds.push(eq(claims.agentId, agentId));
  }
  // An active hold past its expiry reads as expired (views.ts holdStatus); the filter agrees.
  if (q.status === 'expired' && kind === 'hold') conds.push(or(eq(claims.status, 'expired'), and(eq(claims.status, 'active'), lt(claims.expiresAt, now)))!);
  else if (q.status === 'active' && kind === 'hold') conds.push(eq(claims.status, 'active'), gte(claims.expiresAt, now));
  else if (q.status) conds.push(eq(claims.status, q.status as (typeof claims.$inferSelect)['status']));
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    conds.push(or(gt(claims.startAt, c.at), and(eq(claims.startAt, c.at), gt(claims.id, c.id)))!);
  }
  const rows = await db
    .select({ row: claims, ownerEmail: owners.email, timeZone: owners.timeZone, meetingClass: meetingClasses.name, calendarType: calendars.type })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .leftJoin(calendars, eq(calendars.id, claims.calendarId))
    .where(and(...conds))
    .orderBy(asc(claims.startAt), asc(claims.id))
    .limit(q.limit + 1);
  const out = rows.slice(0, q.limit);
  const last = out[out.length - 1];
  return { rows: out, next_cursor: rows.length > q.limit && last ? encodeCursor(last.row.startAt, last.row.id) : null };
}

export async function listHolds(db: Executor, actor: AgentActor, q: ClaimListQuery, now: Date): Promise<{ holds: HoldView[]; next_cursor: string | null }> {
  const p = await page(db, actor, 'hold', q, now);
  const allFree = p.rows.filter((r) => r.row.coverage === 'all_free').map((r) => r.row.id);
  const parts = new Map<string, HoldRange[]>();
  if (allFree.length) {
    const rows = await db
      .select({ holdId: claims.partOfHoldId, startAt: claims.startAt, endAt: claims.endAt })
      .from(claims)
      .where(inArray(claims.partOfHoldId, allFree));
    for (const r of rows) parts.set(r.holdId!, [...(parts.get(r.holdId!) ?? []), r]);
  }
  const booked = await promotedBookings(db, p.rows.map((r) => r.row));
  const groups = await membersOf(db, p.rows.map((r) => r.row), 'hold', now);
  return {
    holds: p.rows.map((r) =>
      holdView(r.row, {
        ownerEmail: r.ownerEmail,
        timeZone: r.timeZone,
        meetingClass: r.meetingClass ?? '',
        calendarType: r.calendarType ?? 'internal',
        now,
        parts: parts.get(r.row.id),
        booking: booked.get(r.row.id),
        members: r.row.groupId ? groups.get(r.row.groupId) : undefined,
      }),
    ),
    next_cursor: p.next_cursor,
  };
}

export async function listBookings(db: Executor, actor: AgentActor, q: ClaimListQuery, now: Date): Promise<{ bookings: BookingView[]; next_cursor: string | null }> {
  const p = await page(db, actor, 'booking', q, now);
  const bookings: BookingView[] = [];
  const groups = await membersOf(db, p.rows.map((r) => r.row), 'booking', now);
  const videos = await videoLinksOf(db, p.rows.map((r) => r.row.id));
  for (const r of p.rows) {
    const members = r.row.groupId ? groups.get(r.row.groupId) : undefined;
    bookings.push(bookingView(r.row, { ownerEmail: r.ownerEmail, timeZone: r.timeZone, meetingClass: r.meetingClass, calendarType: r.calendarType ?? 'internal', preemptedIds: await preemptedBy(db, r.row.id), members, video: videos.get(r.row.id) }));
  }
  return { bookings, next_cursor: p.next_cursor };
}

