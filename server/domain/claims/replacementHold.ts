import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { agents, claims, meetingClasses } from '@/db/schema';
import { parseOwnerScope } from '../access';
import { newId } from '../ids';
import { bufferMs, nearestAlternative, type Claim } from '../scheduling';
import { MINUTE } from '../scheduling/localTime';
import { writeAudit, type AuditActor } from '../audit';
import { DEFAULT_HOLD_TTL_SECONDS, insertClaim, type NewClaim } from './claimStore';
import { ARBITRATION_MARGIN_MS, loadClaims, ownerRules, type LoadedClaim, type SchedulingTarget } from './claimTarget';

/**
 * A bumped meeting rebooked (docs/arbitration.md "Bumped meetings rebooked"): a booking whose
 * class says `on_preempted: "hold_nearest"` gets, in the preempting claim's own transaction and
 * under the owner lock it holds, a hold for its agent on the nearest slot its own rules accept.
 * The slot is the arbiter's alternatives search (nearestAlternative), run with the booking's
 * class on the owner's claims as they will be after this decision: the preempted ones gone, the
 * preempting claim's new range in, and every replacement already placed in this decision. It
 * takes only free time (it never preempts anything, so nothing cascades).
 */

/** What booking.preempted carries (docs/webhooks.md): the hold, or null when the class asks for one and none could be placed. */
export type ReplacementHold = { id: string; start: string; end: string; expires_at: string } | null;

/** What a replacement weighs besides the claims: the preempting claim, its class's rank, the decision's actor and clock. */
export type ReplacementContext = { claim: NewClaim; target: SchedulingTarget; actor: AuditActor; now: Date };

/** The preempted bookings whose class asks for a replacement, with their agent and class (one statement, only when something was preempted). */
async function bookingsToRebook(tx: Tx, ids: string[]) {
  return tx
    .select({ booking: claims, cls: meetingClasses, agent: { id: agents.id, permissions: agents.permissions, disabled: agents.disabled, ownerScope: agents.ownerScope } })
    .from(claims)
    .innerJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .innerJoin(agents, eq(agents.id, claims.agentId))
    .where(and(inArray(claims.id, ids), eq(claims.kind, 'booking'), eq(meetingClasses.onPreempted, 'hold_nearest')))
    .orderBy(claims.startAt, claims.id);
}

/** The preempting claim as the pure core sees it (its insert is still to come in this transaction). */
function asClaim(claim: NewClaim, priority: number): Claim {
  const start = claim.startAt.getTime();
  const end = claim.endAt.getTime();
  const counted = claim.kind === 'hold' && claim.holdScope === 'window' && claim.durationMinutes ? claim.durationMinutes : (end - start) / MINUTE;
  return { id: claim.id, kind: claim.kind ?? 'booking', start, end, countedMinutes: counted, priority, sacred: false, ...bufferMs(claim.bufferBeforeMinutes ?? 0, claim.bufferAfterMinutes ?? 0) };
}

/**
 * Place the replacement holds of the preempted claims at this owner (group members are not
 * rebooked: docs/arbitration.md). Returns, per preempted booking whose class asks for one, its
 * hold or null. Called after the preempted rows were marked, before the preempting claim's insert.
 */
export async function placeReplacementHolds(tx: Tx, preempted: readonly LoadedClaim[], ctx: ReplacementContext): Promise<Map<string, ReplacementHold>> {
  const out = new Map<string, ReplacementHold>();
  // Only what the claims around said is of a class asking for it: a class without the setting costs nothing.
  const ids = preempted.filter((p) => p.rebook && p.kind === 'booking' && !p.groupId && p.agentId).map((p) => p.id);
  if (!ids.length) return out;
  const rows = await bookingsToRebook(tx, ids);
  if (!rows.length) return out;
  const { claim, target, now } = ctx;
  const from = Math.min(...rows.map((r) => r.booking.startAt.getTime()));
  const to = Math.max(...rows.map((r) => r.booking.endAt.getTime()));
  // The owner's claims now (the preempted rows are already marked), less a moved booking's old range, plus the preempting claim.
  const around: Claim[] = (await loadClaims(tx, target.owner.id, new Date(from - ARBITRATION_MARGIN_MS), new Date(to + ARBITRATION_MARGIN_MS), now)).filter((c) => c.id !== claim.id);
  around.push(asClaim(claim, target.meetingClass.priority));
  const rules = ownerRules(target.owner);
  for (const { booking, cls, agent } of rows) {
    if (!mayHold(agent, target.owner.email)) {
      out.set(booking.id, null);
      continue;
    }
    // The booking's own class: its priority and buffers; free time only (a replacement preempts nothing).
    const request = { start: booking.startAt.getTime(), end: booking.endAt.getTime(), priority: cls.priority, preemptPolicy: 'never' as const, agentCanPreempt: false, ...bufferMs(cls.bufferBeforeMinutes, cls.bufferAfterMinutes) };
    const slot = nearestAlternative(request, { now: now.getTime(), rules, claims: around });
    if (!slot) {
      out.set(booking.id, null);
      continue;
    }
    const hold = holdRow(booking, cls, slot, now);
    defer(tx, insertClaim(tx, hold));
    around.push(asClaim(hold, cls.priority));
    defer(
      tx,
      writeAudit(tx, {
        customerId: booking.customerId,
        agentId: null,
        actor: ctx.actor,
        ownerId: target.owner.id,
        ownerEmail: target.owner.email,
        action: 'hold.create',
        outcome: 'accept',
        reason: 'replacement for a preempted booking',
        meetingClass: cls.name,
        start: hold.startAt,
        end: hold.endAt,
        holdId: hold.id,
        details: { replaces_booking_id: booking.id, held_for_agent_id: agent.id, preempted_by_claim_id: claim.id, expires_at: hold.expiresAt!.toISOString() },
        at: now,
      }),
    );
    out.set(booking.id, { id: hold.id, start: hold.startAt.toISOString(), end: hold.endAt.toISOString(), expires_at: hold.expiresAt!.toISOString() });
  }
  return out;
}

/** The agent may still hold time at this owner: enabled, `create_holds`, the owner in its scope. */
function mayHold(agent: { permissions: string[]; disabled: boolean; ownerScope: string }, ownerEmail: string): boolean {
  if (agent.disabled || !agent.permissions.includes('create_holds')) return false;
  const scope = parseOwnerScope(agent.ownerScope);
  return scope?.kind === 'org' || (scope?.kind === 'user' && scope.email === ownerEmail);
}

/** The replacement's row: the booking's agent, customer, owner, calendar and class; the house's default TTL (600 s). */
function holdRow(booking: typeof claims.$inferSelect, cls: typeof meetingClasses.$inferSelect, slot: { start: number; end: number }, now: Date): NewClaim {
  return {
    id: newId(now.getTime()),
    customerId: booking.customerId,
    ownerId: booking.ownerId,
    calendarId: booking.calendarId,
    agentId: booking.agentId,
    meetingClassId: cls.id,
    kind: 'hold',
    status: 'active',
    startAt: new Date(slot.start),
    endAt: new Date(slot.end),
    holdScope: 'candidate',
    durationMinutes: (slot.end - slot.start) / MINUTE,
    expiresAt: new Date(now.getTime() + DEFAULT_HOLD_TTL_SECONDS * 1000),
    bufferBeforeMinutes: cls.bufferBeforeMinutes,
    bufferAfterMinutes: cls.bufferAfterMinutes,
    idempotencyKey: null,
    createdAt: now,
    updatedAt: now,
  };
}
