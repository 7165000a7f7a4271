import type { Executor } from '@/db/client';
import { loadGroupClaims, loadTargets, ownerRules, type SchedulingTarget } from '../../claims';
import { isDomainError } from '../../errors';
import { assignmentOrder, assignmentReason, type MemberLoad } from '../../pools/assignment';
import { getPool, memberLoads } from '../../pools/poolService';
import { groupMembers, searchGroupSlots, type RequestPolicy } from '../../scheduling';
import type { MeetingTypeRecord } from '../admin';

/**
 * The hosts of a public meeting type with several of them (docs/public-scheduling.md
 * "Several hosts"): a collective type's owners (every one required), or a pool type's
 * members (any one, in the order the pool's rule would pick them). Their times come from the
 * collective search's pure walk (scheduling/group.ts `searchGroupSlots`, mode 'all' or 'any'
 * for a pool) over their facts read together (claims/groupFacts.ts), exactly as the agents'
 * collective and pool searches judge them (docs/groups.md).
 */

const HOUR = 3_600_000;
/** Claims loaded either side of a window, for daily limits (a local day can span 26 h). */
const DAY_MARGIN = 26 * HOUR;

export type Host = { target: SchedulingTarget; load?: MemberLoad };
export type HostSet = { mode: 'collective' | 'pool'; hosts: Host[]; poolId?: string };
export type HostSlot = { start: Date; end: Date; /** Owner ids that can take it: every host (collective), or the pool's candidates in the rule's order. */ accepting: string[] };

const CALENDAR_TROUBLE = new Set(['CALENDAR_NOT_FOUND', 'CALENDAR_REAUTH_REQUIRED']);

function calendarTrouble(err: unknown): boolean {
  return isDomainError(err) && CALENDAR_TROUBLE.has(err.code);
}

/**
 * Public pages never offer an owner without working hours (docs/public-scheduling.md
 * "Several hosts"): the agents' API treats such an owner as free around the clock (with the
 * WORKING_HOURS_NOT_CONFIGURED warning), which a requester would see as night-time offers.
 */
function hasWorkingHours(target: SchedulingTarget): boolean {
  return target.owner.workingHours !== null;
}

/**
 * The type's hosts with their targets, or null when it has no usable set: a collective
 * type any of whose hosts has no usable calendar or no working hours (or was deleted,
 * leaving fewer than two), a pool type whose pool was deleted or none of whose members has
 * a usable calendar and working hours. A pool member without either is left out (another
 * member may take the time).
 */
export async function loadHosts(db: Executor, type: MeetingTypeRecord, now: Date): Promise<HostSet | null> {
  const t = type.type;
  if (t.hostMode === 'collective') {
    if (type.hostEmails.length < 2) return null;
    try {
      const targets = await loadTargets(db, t.customerId, { ownerEmails: type.hostEmails, meetingClass: type.meetingClass.name }, false);
      if (!targets.every(hasWorkingHours)) return null;
      return { mode: 'collective', hosts: targets.map((target) => ({ target })) };
    } catch (err) {
      if (calendarTrouble(err)) return null;
      throw err;
    }
  }
  if (t.hostMode === 'pool' && t.poolId) {
    const pool = await getPool(db, t.customerId, null, t.poolId).catch((err) => {
      if (isDomainError(err) && err.code === 'POOL_NOT_FOUND') return null;
      throw err;
    });
    if (!pool) return null;
    const order = assignmentOrder(await memberLoads(db, pool, now));
    const hosts: Host[] = [];
    for (const load of order) {
      try {
        const [target] = await loadTargets(db, t.customerId, { ownerEmails: [load.email], meetingClass: type.meetingClass.name }, false);
        if (hasWorkingHours(target)) hosts.push({ target, load });
      } catch (err) {
        if (!calendarTrouble(err)) throw err;
      }
    }
    return hosts.length ? { mode: 'pool', hosts, poolId: pool.id } : null;
  }
  return null;
}

/**
 * Times of `durationMinutes` in `window` the hosts can take with this request (at most
 * `max`, earliest first, on the grid of the first host's local midnight): every host
 * accepts (collective), or at least one member does (pool). Nothing ever gives way: the
 * public request never has permission to preempt.
 */
export async function hostSlots(db: Executor, set: HostSet, request: RequestPolicy, durationMinutes: number, stepMinutes: number, window: { start: Date; end: Date }, now: Date, max: number): Promise<HostSlot[]> {
  const ids = set.hosts.map((h) => h.target.owner.id);
  const claims = await loadGroupClaims(db, ids, new Date(window.start.getTime() - DAY_MARGIN), new Date(window.end.getTime() + DAY_MARGIN), now);
  const members = groupMembers(
    set.hosts.map((h) => ({ key: h.target.owner.id, rules: ownerRules(h.target.owner), claims: claims.get(h.target.owner.id) ?? [], request })),
    now.getTime(),
  );
  const found = searchGroupSlots({
    required: members,
    mode: set.mode === 'pool' ? 'any' : 'all',
    window: { start: window.start.getTime(), end: window.end.getTime() },
    now: now.getTime(),
    durationMinutes,
    stepMinutes,
    maxResults: max,
  });
  return found.slots.filter((s) => !s.preempts).map((s) => ({ start: new Date(s.start), end: new Date(s.end), accepting: s.accepting }));
}

/** The pool's choice among the members that can take a slot (the first by the rule), with why. */
export function poolChoice(set: HostSet, accepting: readonly string[]): { host: Host; assignment: { pool_id: string; reason: ReturnType<typeof assignmentReason>; load_minutes: number; weight: number } } | null {
  const candidates = set.hosts.filter((h) => accepting.includes(h.target.owner.id));
  const host = candidates[0];
  if (!host?.load || !set.poolId) return null;
  return { host, assignment: { pool_id: set.poolId, reason: assignmentReason(candidates.map((c) => c.load!)), load_minutes: host.load.loadMinutes, weight: host.load.weight } };
}
