import type { Db, Executor } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { poolAssignments, type PoolAssignmentReason } from '@/db/schema';
import type { AgentActor } from '../access';
import { ensureCalendarsUsable } from '../calendars/mirror';
import {
  evaluateBooking,
  GateRefusal,
  runAnsweredClaim,
  searchAvailability,
  type AvailabilityInput,
  type AvailabilityResult,
  type ClaimOperation,
  type KeyAnswer,
} from '../claims';
import { DomainError, invalidField } from '../errors';
import { distinctSlots, localSpan, timeZoneName } from '../scheduling';
import { assignmentOrder, assignmentReason, type MemberLoad } from './assignment';
import { memberLoads, resolvePool, type LoadedPool } from './poolService';

/**
 * Scheduling through a pool (docs/groups.md, "Pools"): search answers the union of the
 * members' acceptable slots, each with the members who could take it; a hold or booking
 * picks one member by the assignment rule (assignment.ts) among those whose arbiter accepts
 * the slot, and claims on that member through the one claim path (claims/claimRunner.ts).
 */

export type PoolAssignmentView = { pool_id: string; reason: PoolAssignmentReason; load_minutes: number; weight: number };

type PoolSlot = {
  start: string;
  end: string;
  start_local: string;
  end_local: string;
  local: Record<string, { start_local: string; end_local: string }>;
  candidates: string[];
};
export type PoolSearchResult = { pool_id: string; owners: { owner_email: string; time_zone: string }[]; slots: PoolSlot[]; warnings?: string[] };

/** A member's search that ends without slots from that member only (the others may still have some). */
const MEMBER_ONLY = new Set(['NO_SLOTS_AVAILABLE', 'CALENDAR_NOT_FOUND', 'CALENDAR_REAUTH_REQUIRED', 'CALENDAR_UNAVAILABLE']);

/**
 * Each member's acceptable slots, or the error that ended its search (a member-only one):
 * today one single-owner search per member (searchAvailability); a multi-owner evaluator can
 * take its place behind this signature.
 */
async function memberSlots(
  db: Db,
  actor: AgentActor,
  emails: readonly string[],
  input: Omit<AvailabilityInput, 'ownerEmail'>,
  now: Date,
): Promise<Map<string, AvailabilityResult | DomainError>> {
  const out = new Map<string, AvailabilityResult | DomainError>();
  await Promise.all(
    emails.map(async (email) => {
      try {
        await ensureCalendarsUsable(db, { customerId: actor.customerId, email }, now);
        out.set(email, await searchAvailability(db, actor, { ...input, ownerEmail: email }, now));
      } catch (err) {
        if (err instanceof DomainError && MEMBER_ONLY.has(err.code)) out.set(email, err);
        else throw err;
      }
    }),
  );
  return out;
}

/** POST /v1/availability/search with `pool`: the union of the members' slots, candidates in the order the pool would pick them. */
export async function searchPoolAvailability(db: Db, actor: AgentActor, poolRef: string, input: Omit<AvailabilityInput, 'ownerEmail'>, now: Date): Promise<PoolSearchResult> {
  const pool = await resolvePool(db, actor.customerId, actor, poolRef);
  const order = assignmentOrder(await memberLoads(db, pool, now));
  const found = await memberSlots(db, actor, order.map((m) => m.email), input, now);
  const slots = new Map<string, { start: number; end: number; candidates: string[] }>();
  const zones = new Map<string, string>();
  const warnings = new Set<string>();
  const refusals: DomainError[] = [];
  for (const m of order) {
    const r = found.get(m.email)!;
    if (r instanceof DomainError) {
      refusals.push(r);
      continue;
    }
    zones.set(m.email, r.time_zone);
    for (const w of r.warnings ?? []) warnings.add(w);
    for (const s of r.slots) {
      const start = Date.parse(s.start);
      const end = Date.parse(s.end);
      const key = `${start}|${end}`;
      const slot = slots.get(key) ?? { start, end, candidates: [] };
      slot.candidates.push(m.email);
      slots.set(key, slot);
    }
  }
  if (!slots.size) throw earliestRefusal(refusals);
  let sorted = [...slots.values()].sort((a, b) => a.start - b.start || a.end - b.end);
  // distinct holds over the union too (each member's search applied it to its own slots; max_per_day stays per member).
  if (input.distinct) sorted = distinctSlots(sorted);
  sorted = sorted.slice(0, input.maxResults ?? Infinity);
  const out: PoolSearchResult = {
    pool_id: pool.id,
    owners: [...zones].map(([owner_email, time_zone]) => ({ owner_email, time_zone: timeZoneName(time_zone) })),
    slots: sorted.map((s) => {
      const local = Object.fromEntries(
        s.candidates.map((email) => {
          const span = localSpan(s.start, s.end, zones.get(email)!);
          return [email, { start_local: span.start_local, end_local: span.end_local }];
        }),
      );
      const first = local[s.candidates[0]];
      return { start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString(), start_local: first.start_local, end_local: first.end_local, local, candidates: s.candidates };
    }),
  };
  if (warnings.size) out.warnings = [...warnings];
  return out;
}

/** No member had a slot: the NO_SLOTS_AVAILABLE whose next_available comes first, else the first refusal. */
function earliestRefusal(refusals: DomainError[]): DomainError {
  const noSlots = refusals.filter((r) => r.code === 'NO_SLOTS_AVAILABLE');
  const at = (e: DomainError) => {
    const next = e.extra?.next_available as { start?: string } | null | undefined;
    return next?.start ? Date.parse(next.start) : Infinity;
  };
  return noSlots.sort((a, b) => at(a) - at(b))[0] ?? refusals[0] ?? noMembers();
}

/** What a pool claim needs besides the claim itself. */
export type PoolClaimRequest = {
  pool: string;
  /** The member the agent names from the slot's candidates: it must be a member; no other is tried. */
  ownerEmail?: string;
  meetingClass: string;
  calendarType?: string;
  /** The slot (a booking, a candidate hold); a window hold has none and tries members in order. */
  slot?: { start: Date; end: Date };
};

/**
 * The claim on the member the pool picks, with its assignment; `build` makes the member's claim
 * with the facts its audit row carries. Each member's claim runs behind that member's calendar
 * gate; `answer`: the request's Idempotency-Key record, where the accepted claim stores its answer
 * (answeredClaim.ts), or null (no key; callers without a transport).
 */
export async function claimThroughPool<T extends object>(
  db: Db,
  actor: AgentActor,
  request: PoolClaimRequest,
  now: Date,
  build: (ownerEmail: string, auditDetails: Record<string, unknown>) => ClaimOperation<T>,
  answer: KeyAnswer | null,
): Promise<T & { owner_email: string; assignment: PoolAssignmentView }> {
  const pool = await resolvePool(db, actor.customerId, actor, request.pool);
  const order = assignmentOrder(await memberLoads(db, pool, now));
  const candidates = await candidatesFor(db, actor, pool, order, request, now);
  const passedOver: { owner_email: string; code: string; reason?: string }[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const member = candidates[i];
    const assignment: PoolAssignmentView = {
      pool_id: pool.id,
      reason: request.ownerEmail ? 'requested' : assignmentReason(candidates.slice(i)),
      load_minutes: member.loadMinutes,
      weight: member.weight,
    };
    const details = {
      pool: { pool_id: pool.id, name: pool.name, assignment, candidates: candidates.slice(i).map((c) => c.email), ...(passedOver.length ? { passed_over: [...passedOver] } : {}) },
    };
    try {
      const gate = { owner: { customerId: actor.customerId, email: member.email }, now };
      const value = await runAnsweredClaim(db, withAssignment(build(member.email, details), actor, pool, member, assignment, now), { gate, answer });
      return { ...value, owner_email: member.email, assignment };
    } catch (err) {
      const refusal = err instanceof GateRefusal ? err.refusal : err;
      // The member lost the slot (a race, a refusal the read did not foresee, a calendar gone): the next one, inside this request.
      if (i === candidates.length - 1 || !(refusal instanceof DomainError) || !RETRYABLE.has(refusal.code)) throw err;
      passedOver.push({ owner_email: member.email, code: refusal.code, ...(refusal.reason ? { reason: refusal.reason } : {}) });
    }
  }
  throw noMembers();
}

/** A pool whose members were all deleted (owners cascade out of it). */
function noMembers(name?: string): DomainError {
  return new DomainError('POOL_NOT_FOUND', `The pool${name ? ` ${name}` : ''} has no members left`);
}

/** Refusals after which the pool tries its next candidate. */
const RETRYABLE = new Set(['ARBITRATION_REJECTED', 'OUT_OF_OFFICE', 'NO_SLOTS_AVAILABLE', 'CALENDAR_NOT_FOUND', 'CALENDAR_REAUTH_REQUIRED', 'CALENDAR_UNAVAILABLE']);

/**
 * The members to try, in order: the one the agent names; or (a slot) those whose arbiter
 * accepts it now, by the assignment rule, and when none does the first by the rule alone, so
 * the refusal is its arbiter's (409 with alternatives and its audit row); or (a window hold)
 * every member by the rule.
 */
async function candidatesFor(db: Db, actor: AgentActor, pool: LoadedPool, order: MemberLoad[], request: PoolClaimRequest, now: Date): Promise<MemberLoad[]> {
  if (request.ownerEmail) {
    const named = order.find((m) => m.email === request.ownerEmail!.trim().toLowerCase());
    if (!named) throw invalidField('owner_email', `${request.ownerEmail} is not a member of the pool ${pool.name}`);
    return [named];
  }
  if (!order.length) throw noMembers(pool.name);
  const slot = request.slot;
  if (!slot) return order;
  const verdicts = await Promise.all(
    order.map((m) =>
      evaluateBooking(db, actor, { ownerEmail: m.email, meetingClass: request.meetingClass, calendarType: request.calendarType, start: slot.start, end: slot.end }, now).then(
        (v) => v.outcome === 'accept',
        (err) => {
          if (err instanceof DomainError && RETRYABLE.has(err.code)) return false;
          throw err;
        },
      ),
    ),
  );
  const accepting = order.filter((_, i) => verdicts[i]);
  return accepting.length ? accepting : [order[0]];
}

/** The member's claim, recording the assignment in the claim's transaction (pool_assignments). */
function withAssignment<T>(operation: ClaimOperation<T>, actor: AgentActor, pool: LoadedPool, member: MemberLoad, assignment: PoolAssignmentView, now: Date): ClaimOperation<T> {
  return {
    ...operation,
    run: async (tx, gate) => {
      const answer = await operation.run(tx, gate);
      if (answer.ok) {
        const value = answer.value as { hold_id?: string; booking_id?: string; series?: { bookings?: { booking_id: string }[] } };
        // A series on one member (poolSeries.ts): every occurrence is assigned.
        const claimIds = value.series?.bookings?.map((b) => b.booking_id) ?? [value.booking_id ?? value.hold_id];
        for (const claimId of claimIds) if (claimId) defer(tx, recordAssignment(tx, { claimId, customerId: actor.customerId, poolId: pool.id, ownerId: member.ownerId, assignment, now }));
        return { ok: true, value: { ...answer.value, owner_email: member.email, assignment } };
      }
      return answer;
    },
  };
}

/** The pool_assignments row of a claim made through a pool (also a pool public type's booking, docs/public-scheduling.md "Several hosts"). */
export function recordAssignment(tx: Executor, a: { claimId: string; customerId: string; poolId: string; ownerId: string; assignment: PoolAssignmentView; now: Date }) {
  return tx
    .insert(poolAssignments)
    .values({ claimId: a.claimId, customerId: a.customerId, poolId: a.poolId, ownerId: a.ownerId, reason: a.assignment.reason, loadMinutes: a.assignment.load_minutes, weight: a.assignment.weight, createdAt: a.now })
    .onConflictDoNothing();
}
