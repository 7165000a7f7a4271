import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { agents, meetingClasses, owners, waitlistEntries } from '@/db/schema';
import { assertOwnerInScope, hasPermission, type AgentActor, type HoldActor } from '../../access';
import { DomainError } from '../../errors';
import { enqueueNotification } from '../../notificationService';
import { loadTarget } from '../claimTarget';
import { DEFAULT_HOLD_TTL_SECONDS } from '../claimStore';
import { holdWindow } from '../windowHold';
import { takeFreed, type Freed } from '../freed';

/**
 * Freed time offered to the waitlist (docs/arbitration.md "Waitlist"), in the transaction that
 * frees it. Every free on the claim path notes what it freed (`noteFreed`: a cancel, a release, a
 * hold's expiry, a preemption, a move away); the claim runner, after the operation's core and
 * before COMMIT, offers it (`offerFreed`; the sweeper's expiry calls it itself). The offer is a
 * window hold over the freed time placed by the claim path's own window-hold placement
 * (windowHold.ts `holdWindow`), arbitrated for the entry's agent under the owner lock: the
 * exclusion constraint and the lock keep one time from going to two entries.
 */

/** How many waiting entries one freed stretch tries, at most, before it is left free. */
const MAX_TRIES_PER_FREE = 20;
const MINUTE = 60_000;

type Interval = { start: number; end: number };

/** `free` without `taken`. */
function minus(free: readonly Interval[], taken: Interval): Interval[] {
  return free.flatMap((f) => {
    if (taken.end <= f.start || taken.start >= f.end) return [f];
    return [
      { start: f.start, end: taken.start },
      { start: taken.end, end: f.end },
    ].filter((r) => r.end > r.start);
  });
}

/** Freed stretches of one owner, merged where they touch. */
function merged(freed: readonly Freed[]): Map<string, Interval[]> {
  const byOwner = new Map<string, Interval[]>();
  for (const f of freed) byOwner.set(f.ownerId, [...(byOwner.get(f.ownerId) ?? []), { start: f.start.getTime(), end: f.end.getTime() }]);
  for (const [owner, list] of byOwner) {
    list.sort((a, b) => a.start - b.start);
    const out: Interval[] = [];
    for (const r of list) {
      const last = out[out.length - 1];
      if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
      else out.push({ ...r });
    }
    byOwner.set(owner, out);
  }
  return byOwner;
}

/**
 * Offer the time this transaction freed: offers on freed holds lapse; then, owner by owner (in
 * owner-id order, as locks are taken), each freed stretch goes to the waiting entries whose
 * window and duration fit it, in order of meeting-class priority, then time joined: each gets a
 * window hold on the earliest free stretch of its duration there, arbitrated as any hold for
 * its agent, until the stretch is used up. An entry its agent can no longer hold for (disabled,
 * permission or scope gone, class or calendar gone) or whose hold is refused stays waiting. A
 * requester's entry (docs/public-scheduling.md "Waitlist") gets the same hold, for no agent;
 * its mail goes out after COMMIT (offerMail.ts `mailOffers`). Answers whether such a mail is due.
 */
export async function offerFreed(tx: Tx): Promise<boolean> {
  const noted = takeFreed(tx);
  if (!noted) return false;
  const { now, freed } = noted;
  const holdIds = [...new Set(freed.flatMap((f) => (f.holdId ? [f.holdId] : [])))];
  if (holdIds.length) {
    await tx
      .update(waitlistEntries)
      .set({ status: 'lapsed', updatedAt: now })
      .where(and(inArray(waitlistEntries.holdId, holdIds), eq(waitlistEntries.status, 'offered')));
  }
  const byOwner = merged(freed);
  let mailDue = false;
  for (const ownerId of [...byOwner.keys()].sort()) {
    for (const stretch of byOwner.get(ownerId)!) {
      const from = Math.max(stretch.start, now.getTime());
      if (stretch.end > from && (await offerStretch(tx, ownerId, { start: from, end: stretch.end }, now))) mailDue = true;
    }
  }
  return mailDue;
}

/** Offer one freed stretch; true when a requester was offered (a mail is due). */
async function offerStretch(tx: Tx, ownerId: string, stretch: Interval, now: Date): Promise<boolean> {
  const start = new Date(stretch.start);
  const end = new Date(stretch.end);
  const fits = sql`least(${waitlistEntries.windowEnd}, ${end.toISOString()}::timestamptz) - greatest(${waitlistEntries.windowStart}, ${start.toISOString()}::timestamptz) >= make_interval(mins => ${waitlistEntries.durationMinutes})`;
  const waiting = await tx
    .select({ entry: waitlistEntries, ownerEmail: owners.email, meetingClass: meetingClasses.name, agent: agents })
    .from(waitlistEntries)
    .innerJoin(owners, eq(owners.id, waitlistEntries.ownerId))
    .innerJoin(meetingClasses, eq(meetingClasses.id, waitlistEntries.meetingClassId))
    .leftJoin(agents, eq(agents.id, waitlistEntries.agentId))
    .where(
      and(
        eq(waitlistEntries.ownerId, ownerId),
        eq(waitlistEntries.status, 'waiting'),
        or(isNull(waitlistEntries.expiresAt), gt(waitlistEntries.expiresAt, now)),
        lt(waitlistEntries.windowStart, end),
        gt(waitlistEntries.windowEnd, start),
        fits,
      ),
    )
    .orderBy(desc(meetingClasses.priority), asc(waitlistEntries.createdAt), asc(waitlistEntries.id))
    .limit(MAX_TRIES_PER_FREE)
    // An agent leaving at the same moment waits for this offer, or this offer for it.
    .for('update', { of: waitlistEntries });
  let free: Interval[] = [stretch];
  let mailDue = false;
  for (const w of waiting) {
    const e = w.entry;
    const lengthMs = e.durationMinutes * MINUTE;
    const room = free
      .map((f) => ({ start: Math.max(f.start, e.windowStart.getTime()), end: Math.min(f.end, e.windowEnd.getTime()) }))
      .find((r) => r.end - r.start >= lengthMs);
    if (!room) continue;
    // A requester's entry: a hold for no agent (free time only, as every offer); an agent's: for it, as it may now.
    const actor: HoldActor | null = w.agent ? holdingAgent(w.agent, w.ownerEmail) : { customerId: e.customerId, agentId: null, permissions: [] };
    if (!actor) continue;
    const held = await offerHold(tx, actor, { ownerEmail: w.ownerEmail, meetingClass: w.meetingClass, calendarType: e.calendarType ?? undefined }, e.id, e.durationMinutes, room, now);
    if (!held) continue;
    await tx.update(waitlistEntries).set({ status: 'offered', holdId: held.id, offeredAt: now, updatedAt: now }).where(eq(waitlistEntries.id, e.id));
    if (e.agentId) await enqueueNotification(tx, {
      customerId: e.customerId,
      agentId: e.agentId,
      kind: 'waitlist.offered',
      data: { waitlist_id: e.id, hold_id: held.id, owner_email: w.ownerEmail, meeting_class: w.meetingClass, start: held.start.toISOString(), end: held.end.toISOString(), expires_at: held.expiresAt.toISOString() },
      now,
    });
    else mailDue = true;
    free = minus(free, { start: held.start.getTime(), end: held.end.getTime() });
    if (!free.some((f) => f.end - f.start >= MINUTE)) return mailDue;
  }
  return mailDue;
}

/** The entry's agent as the actor of its offer (its permissions and scope as they are now), or null when disabled or it may not hold now. */
function holdingAgent(a: typeof agents.$inferSelect, ownerEmail: string): AgentActor | null {
  if (a.disabled) return null;
  const actor: AgentActor = { kind: 'agent', agentId: a.id, customerId: a.customerId, keyId: '', ownerScope: a.ownerScope, permissions: a.permissions, displayTimeZone: a.displayTimeZone };
  return canHold(actor, ownerEmail) ? actor : null;
}

function canHold(actor: AgentActor, ownerEmail: string): boolean {
  if (!hasPermission(actor, 'create_holds')) return false;
  try {
    assertOwnerInScope(actor, ownerEmail);
    return true;
  } catch {
    return false;
  }
}

/** The offer's hold: a first_fit window hold over `room` for the entry's agent, with the house's hold TTL; null when refused. */
async function offerHold(
  tx: Tx,
  actor: HoldActor,
  named: { ownerEmail: string; meetingClass: string; calendarType?: string },
  entryId: string,
  durationMinutes: number,
  room: Interval,
  now: Date,
): Promise<{ id: string; start: Date; end: Date; expiresAt: Date } | null> {
  let target;
  try {
    target = await loadTarget(tx, actor.customerId, named, true);
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
  const window = { start: new Date(room.start), end: new Date(room.end) };
  const spec = { actor, targets: [target], window, durationMinutes, coverage: 'first_fit' as const, ttlMs: DEFAULT_HOLD_TTL_SECONDS * 1000, now, idempotencyKey: null, stamped: true, durationOnly: true, auditDetails: { waitlist_id: entryId } };
  const held = await holdWindow(tx, spec, async () => new DomainError('NO_SLOTS_AVAILABLE', 'No free time for this waitlist entry'));
  if (!held.ok) return null;
  const { claim } = held.value[0];
  return { id: claim.id, start: claim.startAt, end: claim.endAt, expiresAt: claim.expiresAt! };
}
