/**
 * Several owners at once (docs/groups.md "Collective search"): the slot decision of a group is
 * a pure function over its members' facts. Each member is judged by evaluateSlot() with its own
 * rules, claims and the request's policy, exactly as a one-owner search judges it; the group
 * only combines the verdicts:
 *   mode 'all' (a collective meeting): accepted iff every required member accepts; evaluation
 *              stops at the first refusal (the grid is walked once, pruned per member);
 *   mode 'any' (a pool): accepted iff at least one member accepts; `accepting` lists them all.
 * Optional members never decide; `freeOptional` lists the ones that accept (judged only on a
 * slot the required members accept).
 */
import { RulesCalendar, SchedulingContext } from './schedulingContext';
import { checkClaimsAndLimit, checkClockAndRules, checkDailyLimit, evaluateSlot, type FailedStage, type SlotRefusal } from './evaluate';
import { mergeIntervals } from './intervals';
import { MAX_BUFFER_MS, reachesWithin } from './buffers';
import type { DayTable } from './localTime';
import { MINUTE } from './localTime';
import type { Claim, Interval, NoSlotsReason, OwnerRules, RequestPolicy } from './types';

type GroupMode = 'all' | 'any';

/** One owner's facts: its rules, its active claims around the searched range, the request's policy at it. */
export type GroupMemberFacts = {
  /** How the answer names the member (its email). */
  key: string;
  rules: OwnerRules;
  claims: readonly Claim[];
  request: RequestPolicy;
  excludeClaimIds?: readonly string[];
};

/** A member ready to be judged: its facts and their per-call context (built once per search). */
export type GroupMember = { key: string; ctx: SchedulingContext; request: RequestPolicy };

export function groupMember(facts: GroupMemberFacts, now: number, calendar?: RulesCalendar): GroupMember {
  return { key: facts.key, ctx: new SchedulingContext(facts.rules, facts.claims, now, facts.excludeClaimIds, calendar), request: facts.request };
}

/**
 * Members for a group call: owners with the same rules (zone, working hours, hard blocks) share
 * one RulesCalendar, so a team on one schedule lays out its days and hard blocks once, not once
 * per member. `shared` may be passed again to reuse the calendars across calls of one request.
 */
export function groupMembers(list: readonly GroupMemberFacts[], now: number, shared = new Map<string, RulesCalendar>()): GroupMember[] {
  return list.map((facts) => {
    const r = facts.rules;
    const key = JSON.stringify([r.timeZone, r.workingHours, r.hardBlocks, r.dateOverrides ?? []]);
    let calendar = shared.get(key);
    if (!calendar) shared.set(key, (calendar = new RulesCalendar(r)));
    return groupMember(facts, now, calendar);
  });
}

type MemberRefusal = { key: string; stage: FailedStage; reason: string };

export type GroupSlotDecision = {
  ok: boolean;
  /** 'all': every required member when ok. 'any': every required (pool) member that accepts. */
  accepting: string[];
  /** The optional members that accept (only judged when ok). */
  freeOptional: string[];
  /** Some accepting member would preempt a claim. */
  preempts: boolean;
  /** 'all' and not ok: the first refusing member. With `explain`: every refusing member. */
  refusals: MemberRefusal[];
};

export type GroupSlotOptions = {
  mode?: GroupMode;
  /** Judge every member even after the decision is known (reasons for every refusal). */
  explain?: boolean;
};

/**
 * The group decision for [start, end): see the file comment. `required` is judged in array
 * order; a caller walking a grid can put the member that refused last first (it is likely to
 * refuse the next point too), which is what searchGroupSlots does.
 */
export function decideGroupSlot(
  required: readonly GroupMember[],
  optional: readonly GroupMember[],
  start: number,
  end: number,
  options: GroupSlotOptions = {},
): GroupSlotDecision {
  const mode = options.mode ?? 'all';
  const accepting: string[] = [];
  const refusals: MemberRefusal[] = [];
  let preempts = false;
  for (const m of required) {
    const v = evaluateSlot(m.ctx, start, end, m.request);
    if (v.ok) {
      accepting.push(m.key);
      if (v.preempt.length) preempts = true;
      continue;
    }
    refusals.push({ key: m.key, stage: v.stage, reason: v.reason });
    if (mode === 'all' && !options.explain) return { ok: false, accepting, freeOptional: [], preempts: false, refusals };
  }
  const ok = mode === 'all' ? refusals.length === 0 && required.length > 0 : accepting.length > 0;
  const freeOptional: string[] = [];
  if (ok || options.explain) {
    for (const m of optional) {
      const v = evaluateSlot(m.ctx, start, end, m.request);
      if (v.ok) freeOptional.push(m.key);
      else if (options.explain) refusals.push({ key: m.key, stage: v.stage, reason: v.reason });
    }
  }
  return { ok, accepting, freeOptional: ok ? freeOptional : [], preempts: ok && preempts, refusals };
}

export type GroupSlot = Interval & { accepting: string[]; freeOptional: string[]; preempts: boolean };

export type SearchGroupSlotsParams = {
  required: readonly GroupMember[];
  optional?: readonly GroupMember[];
  mode?: GroupMode;
  /** Keep only slots with at least this many free optional members (the quorum). */
  minOptional?: number;
  window: Interval;
  now: number;
  durationMinutes: number;
  /** Grid step; slots start at multiples of it after local midnight in the FIRST required member's zone. */
  stepMinutes: number;
  /** Stop after this many slots (in start order). Infinity: walk the whole window. */
  maxResults: number;
};

/** Per member, why it refused the window's grid points: the stages it refused at, as no-slot reasons, and how many points it alone accepts. */
export type MemberNoSlots = { key: string; reasons: NoSlotsReason[]; freeSlots: number; reasonCode: NoSlotsReason | null };

export type SearchGroupSlotsResult = { slots: GroupSlot[] };

function onGrid(params: SearchGroupSlotsParams, visit: (t: number, end: number) => boolean): void {
  const length = params.durationMinutes * MINUTE;
  if (!(length > 0)) throw new RangeError('durationMinutes must be positive');
  const first = params.required[0];
  if (!first) return;
  const from = Math.max(params.window.start, params.now);
  const lastStart = params.window.end - length;
  if (lastStart < from) return;
  for (const m of [...params.required, ...(params.optional ?? [])]) m.ctx.ensure(from, params.window.end);
  first.ctx.table.forEachGridPoint(from, lastStart + 1, params.stepMinutes, (t) => visit(t, t + length));
}

/**
 * Time no slot may touch for this request: the union, over the members, of what refuses any
 * slot overlapping it whatever else holds: non-working time (a slot must lie in one working
 * interval), hard blocks, and claims the request may not preempt (sacred, not lower priority,
 * or preemption not allowed) with their buffers and the request's. Only ever refuses what evaluateSlot() refuses, so it is a pure
 * shortcut: what it lets through is still judged by every member in full.
 */
function blockedForAll(members: readonly GroupMember[], from: number, to: number): Interval[] {
  const all: Interval[] = [];
  for (const m of members) {
    const { ctx, request } = m;
    if (ctx.rules.workingHours) {
      let prev = from;
      for (const w of ctx.workingWithin(from, to)) {
        if (w.start > prev) all.push({ start: prev, end: w.start });
        prev = Math.max(prev, w.end);
      }
      if (prev < to) all.push({ start: prev, end: to });
    }
    all.push(...ctx.hardBlocksWithin(from, to));
    const mayPreempt = request.agentCanPreempt && request.preemptPolicy !== 'never';
    // Each such claim with its buffers and the request's (buffers.ts reachOf).
    all.push(...reachesWithin(ctx, from, to, request, (c) => c.sacred || c.priority >= request.priority || !mayPreempt));
  }
  return mergeIntervals(all);
}

/**
 * Acceptable group slots of the window in start order (at most maxResults), the grid walked
 * once. Mode 'all': the time some required member refuses whatever the slot (blockedForAll) is
 * skipped without asking anyone; a start clear of it is judged by every required member, dropped
 * at the first refusal (that member is asked first at the next start). Quorum: slots with fewer
 * than minOptional free optional members are dropped.
 */
export function searchGroupSlots(params: SearchGroupSlotsParams): SearchGroupSlotsResult {
  const mode = params.mode ?? 'all';
  const order = [...params.required];
  const optional = params.optional ?? [];
  const minOptional = params.minOptional ?? 0;
  const slots: GroupSlot[] = [];
  if (params.maxResults <= 0) return { slots };
  let blocked: Interval[] | null = null;
  let j = 0;
  onGrid(params, (t, end) => {
    if (mode === 'all') {
      blocked ??= blockedForAll(order, Math.max(params.window.start, params.now), params.window.end);
      while (j < blocked.length && blocked[j].end <= t) j++;
      if (j < blocked.length && blocked[j].start < end) return true;
    }
    const d = decideGroupSlot(order, optional, t, end, { mode });
    if (!d.ok) {
      if (mode === 'all' && d.refusals.length) {
        // Ask the member that just refused first next time: busy owners prune most points.
        const i = order.findIndex((m) => m.key === d.refusals[0].key);
        if (i > 0) order.unshift(...order.splice(i, 1));
      }
      return true;
    }
    if (d.freeOptional.length < minOptional) return true;
    const accepting = mode === 'all' ? params.required.map((m) => m.key) : d.accepting;
    const freeOptional = optional.filter((m) => d.freeOptional.includes(m.key)).map((m) => m.key);
    slots.push({ start: t, end, accepting, freeOptional, preempts: d.preempts });
    return slots.length < params.maxResults;
  });
  return { slots };
}

const STAGE_REASON: Record<Exclude<FailedStage, 'past'>, NoSlotsReason> = {
  working: 'WORKING_HOURS',
  hardBlock: 'HARD_BLOCK',
  claims: 'NO_FREE_SLOTS',
  daily: 'DAILY_HOURS_LIMIT',
};
const REASON_ORDER: NoSlotsReason[] = ['OFF_DAY', 'WORKING_HOURS', 'HARD_BLOCK', 'DAILY_HOURS_LIMIT', 'NO_FREE_SLOTS'];

/**
 * Why a group search found nothing, per member (required, then optional): every member judged
 * at every grid point. `reasons`: the reasons it refused some point for (OFF_DAY, WORKING_HOURS,
 * HARD_BLOCK, DAILY_HOURS_LIMIT, NO_FREE_SLOTS for busy time), in that order; `freeSlots`: the
 * points it alone accepts; `reasonCode`: when it accepts none, the one a one-owner search of it
 * answers (searchSlots' precedence), else null.
 */
export function explainNoGroupSlots(params: Omit<SearchGroupSlotsParams, 'maxResults' | 'minOptional' | 'mode'>): MemberNoSlots[] {
  const members = [...params.required, ...(params.optional ?? [])];
  const seen = members.map(() => new Set<NoSlotsReason>());
  const free = members.map(() => 0);
  const passedWorking = members.map(() => false);
  const passedBlocks = members.map(() => false);
  const dailyCouldPass = members.map(() => false);
  let candidates = 0;
  // Steps 1-3 read only the clock and the rules' calendar: members sharing one (groupMembers: same
  // zone, working hours and hard blocks) and the clock share their verdict, judged once per point.
  const byCalendar = new Map<DayTable, { now: number; refusal: SlotRefusal | null }>();
  onGrid({ ...params, maxResults: Infinity }, (t, end) => {
    candidates++;
    byCalendar.clear();
    members.forEach((m, i) => {
      let rules = byCalendar.get(m.ctx.table);
      if (!rules || rules.now !== m.ctx.now) byCalendar.set(m.ctx.table, (rules = { now: m.ctx.now, refusal: checkClockAndRules(m.ctx, t, end) }));
      const v = rules.refusal ?? checkClaimsAndLimit(m.ctx, t, end, m.request);
      if (v.ok) {
        free[i]++;
        return;
      }
      if (v.stage === 'past') return;
      const reason = v.stage === 'working' && v.reason === 'OFF_DAY' ? 'OFF_DAY' : STAGE_REASON[v.stage];
      seen[i].add(reason);
      if (v.stage !== 'working') passedWorking[i] = true;
      if (v.stage === 'claims' || v.stage === 'daily') passedBlocks[i] = true;
      if (v.stage === 'claims' && checkDailyLimit(m.ctx, t, end, [])) dailyCouldPass[i] = true;
    });
    return true;
  });
  return members.map((m, i) => {
    let reasonCode: NoSlotsReason | null = null;
    if (free[i] === 0) {
      if (candidates === 0) reasonCode = 'NO_FREE_SLOTS';
      else if (!passedWorking[i]) reasonCode = seen[i].has('WORKING_HOURS') ? 'WORKING_HOURS' : 'OFF_DAY';
      else if (!passedBlocks[i]) reasonCode = 'HARD_BLOCK';
      else if (!dailyCouldPass[i]) reasonCode = 'DAILY_HOURS_LIMIT';
      else reasonCode = 'NO_FREE_SLOTS';
    }
    return { key: m.key, reasons: REASON_ORDER.filter((r) => seen[i].has(r)), freeSlots: free[i], reasonCode };
  });
}

/**
 * The earliest group slot (mode 'all', quorum applied) starting in [max(from, now), latestStart],
 * on the same grid as searchGroupSlots; null when none.
 */
export function nextGroupSlot(params: Omit<SearchGroupSlotsParams, 'maxResults' | 'window'> & { from: number; latestStart: number }): Interval | null {
  const length = params.durationMinutes * MINUTE;
  const found = searchGroupSlots({ ...params, window: { start: params.from, end: params.latestStart + length }, maxResults: 1 }).slots[0];
  return found ? { start: found.start, end: found.end } : null;
}

/**
 * The latest start (>= `from`) a search over these members may judge from facts holding every
 * claim that overlaps `facts`, exactly as it would with every claim: a slot's verdict reads the
 * claims overlapping it or reaching it with buffers and those of each local day it touches
 * (evaluate.ts, the daily limit), so a slot qualifies when, in every member's zone, its local
 * days lie a whole buffer (MAX_BUFFER_MS) inside `facts`. -Infinity
 * when the local day of `from` already begins before `facts` does. Lets the next-slot search of a
 * refusal start on the facts its window's search read (docs/groups.md "Collective search").
 */
export function lastStartOnFacts(members: readonly GroupMember[], loaded: Interval, from: number, durationMinutes: number): number {
  // A claim just outside what was read may still reach in with its buffers (buffers.ts): judge only
  // what lies a whole buffer inside it.
  const facts = { start: loaded.start + MAX_BUFFER_MS, end: loaded.end - MAX_BUFFER_MS };
  let limit = Infinity;
  for (const m of members) {
    m.ctx.ensure(Math.min(from, facts.end), Math.max(from, facts.end));
    if (m.ctx.table.dayAt(from).start < facts.start) return -Infinity;
    // A slot ending at or before the start of the day holding facts.end touches no later day.
    limit = Math.min(limit, m.ctx.table.dayAt(facts.end).start);
  }
  return limit - durationMinutes * MINUTE;
}
