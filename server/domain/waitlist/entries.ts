import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { claims, meetingClasses, owners, waitlistEntries } from '@/db/schema';
import { assertOwnerInScope, resolveOwnerEmail, type AgentActor } from '../access';
import { DomainError, invalidField } from '../errors';
import { isUuid, newId } from '../ids';
import { loadTarget, validateWindow } from '../claims';

/**
 * The waitlist, an agent's side (docs/api.md "Waitlist"): join, list, read, leave. Offering
 * freed time to an entry is claims/waitlist/offers.ts's, in the transaction that frees it.
 */

export type WaitlistInput = { ownerEmail?: string; meetingClass: string; calendarType?: string; durationMinutes: number; window: { start: Date; end: Date }; expiresAt?: Date };

export type WaitlistView = {
  id: string;
  status: 'waiting' | 'offered' | 'fulfilled' | 'lapsed' | 'cancelled' | 'expired';
  owner_email: string;
  meeting_class: string;
  calendar_type: string | null;
  duration_minutes: number;
  window_start: string;
  window_end: string;
  expires_at: string | null;
  hold_id: string | null;
  offered_at: string | null;
  created_at: string;
};

/** The most entries one agent may have waiting at once. */
const MAX_WAITING_PER_AGENT = 100;

const entryColumns = { row: waitlistEntries, ownerEmail: owners.email, meetingClass: meetingClasses.name, holdStatus: claims.status, holdExpiresAt: claims.expiresAt };
type EntryRecord = { row: typeof waitlistEntries.$inferSelect; ownerEmail: string; meetingClass: string; holdStatus: string | null; holdExpiresAt: Date | null };

/**
 * What an entry is now: `fulfilled` once its hold was confirmed, `lapsed` once the hold ended
 * unconfirmed (also before the sweep marks it), `expired` when still waiting past expires_at or
 * past the window's end (nothing can be offered any more).
 */
function statusOf(e: EntryRecord, now: Date): WaitlistView['status'] {
  const { status, expiresAt } = e.row;
  if (status === 'waiting') return (expiresAt && expiresAt <= now) || e.row.windowEnd <= now ? 'expired' : 'waiting';
  if (status !== 'offered') return status;
  if (e.holdStatus === 'promoted') return 'fulfilled';
  if (e.holdStatus === 'active' && e.holdExpiresAt && e.holdExpiresAt > now) return 'offered';
  return 'lapsed';
}

function view(e: EntryRecord, now: Date): WaitlistView {
  const r = e.row;
  return {
    id: r.id,
    status: statusOf(e, now),
    owner_email: e.ownerEmail,
    meeting_class: e.meetingClass,
    calendar_type: r.calendarType,
    duration_minutes: r.durationMinutes,
    window_start: r.windowStart.toISOString(),
    window_end: r.windowEnd.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
    hold_id: r.holdId,
    offered_at: r.offeredAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

/** Entries with what their view shows: the owner, the class, and the offered hold's state. */
function entriesWith(db: Executor) {
  return db
    .select(entryColumns)
    .from(waitlistEntries)
    .innerJoin(owners, eq(owners.id, waitlistEntries.ownerId))
    .innerJoin(meetingClasses, eq(meetingClasses.id, waitlistEntries.meetingClassId))
    .leftJoin(claims, eq(claims.id, waitlistEntries.holdId));
}

async function findEntry(db: Executor, actor: AgentActor, id: string): Promise<EntryRecord> {
  if (!isUuid(id)) throw new DomainError('WAITLIST_ENTRY_NOT_FOUND', 'Waitlist entry not found');
  // Scoped as holds are: this customer, this agent's own rows, an owner within its scope.
  const [found] = await entriesWith(db)
    .where(and(eq(waitlistEntries.id, id), eq(waitlistEntries.customerId, actor.customerId), eq(waitlistEntries.agentId, actor.agentId)))
    .limit(1);
  if (!found) throw new DomainError('WAITLIST_ENTRY_NOT_FOUND', 'Waitlist entry not found');
  assertOwnerInScope(actor, found.ownerEmail);
  return found;
}

/**
 * POST /v1/waitlist: wait for `durationMinutes` of the owner's time inside the window (a single
 * slot: a window of its duration), for a meeting class; until `expiresAt` (default: until the
 * window has passed). Nothing is held now: freed time is offered later (claims/waitlist/offers.ts).
 */
export async function joinWaitlist(db: Db, actor: AgentActor, input: WaitlistInput, now: Date): Promise<WaitlistView> {
  const ownerEmail = resolveOwnerEmail(actor, input.ownerEmail);
  validateWindow(input.window, input.durationMinutes, now);
  if (input.expiresAt && input.expiresAt <= now) throw invalidField('expires_at', 'must be in the future', 'expires_at must be in the future');
  const target = await loadTarget(db, actor.customerId, { ownerEmail, meetingClass: input.meetingClass, calendarType: input.calendarType }, false);
  const waiting = await db
    .select({ id: waitlistEntries.id })
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.agentId, actor.agentId), eq(waitlistEntries.status, 'waiting')))
    .limit(MAX_WAITING_PER_AGENT);
  if (waiting.length >= MAX_WAITING_PER_AGENT) throw invalidField('owner_email', 'too many entries', `An agent may wait in at most ${MAX_WAITING_PER_AGENT} waitlist entries at once`);
  const [row] = await db
    .insert(waitlistEntries)
    .values({
      id: newId(now.getTime()),
      customerId: actor.customerId,
      agentId: actor.agentId,
      ownerId: target.owner.id,
      meetingClassId: target.meetingClass.id,
      calendarType: input.calendarType ?? null,
      durationMinutes: input.durationMinutes,
      windowStart: input.window.start,
      windowEnd: input.window.end,
      expiresAt: input.expiresAt ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return view({ row, ownerEmail: target.owner.email, meetingClass: target.meetingClass.name, holdStatus: null, holdExpiresAt: null }, now);
}

/** GET /v1/waitlist: the agent's entries, newest first (at most 200), optionally of some statuses as stored. */
export async function listWaitlist(db: Executor, actor: AgentActor, now: Date, stored?: readonly ('waiting' | 'offered' | 'lapsed' | 'cancelled')[]): Promise<WaitlistView[]> {
  const mine = [eq(waitlistEntries.customerId, actor.customerId), eq(waitlistEntries.agentId, actor.agentId)];
  const rows = await entriesWith(db)
    .where(and(...mine, ...(stored?.length ? [inArray(waitlistEntries.status, [...stored])] : [])))
    .orderBy(desc(waitlistEntries.createdAt))
    .limit(200);
  return rows.filter((r) => isInScope(actor, r.ownerEmail)).map((r) => view(r, now));
}

function isInScope(actor: AgentActor, email: string): boolean {
  try {
    assertOwnerInScope(actor, email);
    return true;
  } catch {
    return false;
  }
}

export async function getWaitlistEntry(db: Executor, actor: AgentActor, id: string, now: Date): Promise<WaitlistView> {
  return view(await findEntry(db, actor, id), now);
}

/**
 * DELETE /v1/waitlist/{id}: leave the waitlist. A waiting entry is cancelled; an offered one
 * keeps its hold (the agent releases it with DELETE /v1/holds/{hold_id}). Leaving twice answers
 * the entry again.
 */
export async function leaveWaitlist(db: Db, actor: AgentActor, id: string, now: Date): Promise<WaitlistView> {
  const found = await findEntry(db, actor, id);
  if (found.row.status === 'waiting') {
    await db
      .update(waitlistEntries)
      .set({ status: 'cancelled', updatedAt: now })
      .where(and(eq(waitlistEntries.id, id), eq(waitlistEntries.status, 'waiting')));
  }
  return getWaitlistEntry(db, actor, id, now);
}
