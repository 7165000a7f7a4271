import type { Db, Executor } from '@/db/client';
import type { AgentActor } from '../access';
import { DomainError, invalidField } from '../errors';
import {
  MAX_BUFFER_MS,
  capPerDay,
  DEFAULT_MAX_RESULTS,
  DEFAULT_STEP_MINUTES,
  explainNoGroupSlots,
  groupMembers,
  lastStartOnFacts,
  localSpan,
  nextGroupSlot,
  searchGroupSlots,
  timeZoneName,
  type GroupMember,
  type GroupMemberFacts,
  type GroupSlot,
  type Interval,
  type NoSlotsReason,
  type RequestPolicy,
} from '../scheduling';
import { loadTargets, ownerRules, requestPolicy, rulesWarnings, type SchedulingTarget } from './claimTarget';
import { loadGroupClaims, loadGroupClaimsGated } from './groupFacts';
import { timed, type SearchClock } from './searchClock';
import type { AvailabilityInput } from './availabilityService';
import { MAX_GROUP_OWNERS } from './groupMembers';
import { BEYOND_LOOKAHEAD_MS, DEFAULT_LOOKAHEAD_HOURS, MAX_LOOKAHEAD_HOURS, validateWindow } from './windows';

const HOUR = 3_600_000;
/** A local day and the longest buffer (docs/arbitration.md "Buffers"): a slot's verdict reads no claim further out (lastStartOnFacts). */
const DAY_MARGIN = 26 * HOUR + MAX_BUFFER_MS;

export type GroupAvailabilityInput = Omit<AvailabilityInput, 'ownerEmail'> & {
  /** 2 to 20 required owners: a slot is one every one of them accepts. */
  ownerEmails: string[];
  /** Up to 20 optional owners (disjoint from the required): ranked by, never required. */
  optionalOwnerEmails?: string[];
  /** Keep only slots with at least this many optional owners free (0 to their number). */
  minOptional?: number;
};

type LocalPair = { start_local: string; end_local: string };
export type GroupAvailabilityResult = {
  owner_email: string;
  time_zone: string;
  owners: { owner_email: string; time_zone: string; required: boolean }[];
  slots: { start: string; end: string; start_local: string; end_local: string; local: Record<string, LocalPair>; free_optional: string[]; preempts: boolean }[];
  warnings?: string[];
};

type Loaded = { target: SchedulingTarget; required: boolean };

type Members = { required: GroupMember[]; optional: GroupMember[] };

/** `policy`: how each owner judges the request (default: the agent's own policy, preemption included). */
function membersOf(loaded: readonly Loaded[], actor: AgentActor, claims: Map<string, GroupMemberFacts['claims']>, now: number, policy: (p: RequestPolicy) => RequestPolicy = (p) => p): Members {
  const list = groupMembers(
    loaded.map(({ target }) => ({ key: target.owner.email, rules: ownerRules(target.owner), claims: claims.get(target.owner.id) ?? [], request: policy(requestPolicy(actor, target)) })),
    now,
  );
  return { required: list.filter((_, i) => loaded[i].required), optional: list.filter((_, i) => !loaded[i].required) };
}

function checkInput(input: GroupAvailabilityInput): void {
  const optional = input.optionalOwnerEmails ?? [];
  const required = new Set(input.ownerEmails.map((e) => e.trim().toLowerCase()));
  if (required.size !== input.ownerEmails.length) throw invalidField('owner_emails', 'each owner at most once', 'owner_emails names an owner twice');
  if (required.size < 2 || required.size > MAX_GROUP_OWNERS) throw invalidField('owner_emails', `2 to ${MAX_GROUP_OWNERS} owners`, `owner_emails must name 2 to ${MAX_GROUP_OWNERS} owners`);
  const opt = new Set(optional.map((e) => e.trim().toLowerCase()));
  if (opt.size !== optional.length || optional.length > MAX_GROUP_OWNERS) throw invalidField('optional_owner_emails', `at most ${MAX_GROUP_OWNERS}, each once`, 'optional_owner_emails names an owner twice or more than 20');
  for (const e of opt) if (required.has(e)) throw invalidField('optional_owner_emails', 'disjoint from owner_emails', `${e} is both required and optional`);
  const min = input.minOptional ?? 0;
  if (!(Number.isInteger(min) && min >= 0 && min <= optional.length)) throw invalidField('min_optional', `0 to ${optional.length}`, `min_optional must be between 0 and the number of optional owners (${optional.length})`);
}

/** Keep slots (in the order given: best first) that overlap no slot kept before them. */
function distinctRanked<T extends { start: number; end: number }>(ranked: readonly T[]): T[] {
  const kept: T[] = [];
  for (const s of ranked) if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  return kept;
}

/**
 * Collective search (docs/groups.md "Collective search"): the slots every required owner's
 * arbiter accepts for this agent and meeting class, ranked by how many optional owners are
 * free, then by time. The facts of all owners are read with one statement per kind of fact
 * (groupFacts.ts) and the grid is walked once (searchGroupSlots), a point dropped at the first
 * owner refusing it. No slot: NO_SLOTS_AVAILABLE with next_available (a slot for the whole
 * group) and `owners`, per owner the reasons that blocked the window.
 */
export async function searchGroupAvailability(db: Db, actor: AgentActor, input: GroupAvailabilityInput, now: Date, clock?: SearchClock): Promise<GroupAvailabilityResult> {
  const lookaheadHours = input.lookaheadHours ?? DEFAULT_LOOKAHEAD_HOURS;
  if (lookaheadHours > MAX_LOOKAHEAD_HOURS) {
    throw new DomainError('LOOKAHEAD_EXCEEDS_MAXIMUM', `next_available_lookahead_hours may be at most ${MAX_LOOKAHEAD_HOURS}`, { extra: { maximum_lookahead_hours: MAX_LOOKAHEAD_HOURS } });
  }
  checkInput(input);
  const optionalEmails = input.optionalOwnerEmails ?? [];
  const targets = await timed(clock, 'look-ups', () =>
    loadTargets(db, actor.customerId, { ownerEmails: [...input.ownerEmails, ...optionalEmails], meetingClass: input.meetingClass, calendarType: input.calendarType }, false),
  );
  const windows = input.windows?.length ? input.windows : [input.window];
  for (const w of windows) validateWindow(w, input.durationMinutes, now);
  const loaded: Loaded[] = targets.map((target, i) => ({ target, required: i < input.ownerEmails.length }));
  const ids = targets.map((t) => t.owner.id);
  const lead = targets[0].owner;
  const stepMinutes = input.stepMinutes ?? DEFAULT_STEP_MINUTES;
  const maxResults = input.maxResults ?? DEFAULT_MAX_RESULTS;
  // Ranking by free optional owners, distinct and max_per_day choose among the whole window.
  const walkAll = optionalEmails.length > 0 || input.distinct || input.maxPerDay;
  const common = { now: now.getTime(), durationMinutes: input.durationMinutes, stepMinutes, minOptional: input.minOptional ?? 0 };
  const found = new Map<string, GroupSlot>();
  let first: Known | undefined;
  for (const window of windows) {
    const facts = { start: window.start.getTime() - DAY_MARGIN, end: window.end.getTime() + DAY_MARGIN };
    const claims = await timed(clock, 'fact load', () => loadGroupClaimsGated(db, ids, new Date(facts.start), new Date(facts.end), now));
    const result = timed(clock, 'grid walk', () => {
      const members = membersOf(loaded, actor, claims, now.getTime());
      first ??= { members, facts };
      return searchGroupSlots({ ...common, ...members, window: { start: window.start.getTime(), end: window.end.getTime() }, maxResults: walkAll ? Infinity : maxResults });
    });
    for (const slot of result.slots) found.set(`${slot.start}|${slot.end}`, slot);
  }
  let slots = [...found.values()].sort((a, b) => b.freeOptional.length - a.freeOptional.length || a.start - b.start || a.end - b.end);
  if (input.distinct) slots = distinctRanked(slots);
  if (input.maxPerDay) slots = capPerDay(slots, input.maxPerDay, lead.timeZone);
  slots = slots.slice(0, maxResults);
  const warnings = [...new Set(targets.flatMap((t) => rulesWarnings(t.owner)))];
  if (slots.length === 0) throw await noGroupSlots({ db, actor, loaded, ids, window: windows[0], known: first!, lookaheadHours, common, warnings, now, clock });
  return timed(clock, 'answer', () => {
    const out: GroupAvailabilityResult = {
      owner_email: lead.email,
      time_zone: timeZoneName(lead.timeZone),
      owners: targets.map((t, i) => ({ owner_email: t.owner.email, time_zone: timeZoneName(t.owner.timeZone), required: i < input.ownerEmails.length })),
      slots: slots.map((s) => {
        const local: Record<string, LocalPair> = {};
        for (const t of targets) {
          const span = localSpan(s.start, s.end, t.owner.timeZone);
          local[t.owner.email] = { start_local: span.start_local, end_local: span.end_local };
        }
        return { ...localSpan(s.start, s.end, lead.timeZone), local, free_optional: s.freeOptional, preempts: s.preempts };
      }),
    };
    if (warnings.length) out.warnings = warnings;
    return out;
  });
}

/** How far one read of the next-slot search reaches: the lookahead (72 h) in one, the 14 days beyond it in four. */
const NEXT_CHUNK_MS = 4 * 24 * HOUR;

type NextInput = {
  db: Executor;
  actor: AgentActor;
  loaded: readonly Loaded[];
  ids: readonly string[];
  common: { now: number; durationMinutes: number; stepMinutes: number; minOptional: number };
  now: Date;
  /** How each owner judges the request (a window hold: free time only). */
  policy?: (p: RequestPolicy) => RequestPolicy;
  /** Reads the owners' facts of [from, to) (a search: with the calendar gate folded in). */
  load?: (from: Date, to: Date) => Promise<Map<string, GroupMemberFacts['claims']>>;
};

/** The members a search judged its first window with, and the range its facts cover (every claim overlapping it). */
type Known = { members: Members; facts: Interval };

type NoSlotsInput = NextInput & {
  db: Db;
  loaded: readonly Loaded[];
  ids: readonly string[];
  window: { start: Date; end: Date };
  /** The members as the search of `window` judged them (its facts cover the window +-26 h). */
  known: Known;
  lookaheadHours: number;
  warnings: string[];
  clock?: SearchClock;
};

/**
 * NO_SLOTS_AVAILABLE for a group: `owners` (per owner, required and optional: the reasons its
 * arbiter refused grid points of the first window for, and how many it alone accepts),
 * `reason_code` (the first required owner accepting no point at all: its one-owner reason;
 * else NO_FREE_SLOTS, the owners are never free together), and next_available as a one-owner
 * search answers it, for the whole group (quorum included). The window's own facts explain it;
 * the next slot is looked for after the window's last start (the window had none): first on
 * the window's facts as far as they judge a slot exactly (nextInChunks), then reading the
 * owners' facts a few days at a time and stopping at the first slot.
 */
async function noGroupSlots(x: NoSlotsInput): Promise<DomainError> {
  const { common, loaded } = x;
  const from = x.window.start.getTime();
  const lookaheadEnd = x.window.end.getTime() + x.lookaheadHours * HOUR;
  const extra: Record<string, unknown> = timed(x.clock, 'reasons', () => {
    const explained = explainNoGroupSlots({ ...common, ...x.known.members, window: { start: from, end: x.window.end.getTime() } });
    const reason: NoSlotsReason = explained.find((e, i) => loaded[i].required && e.reasonCode)?.reasonCode ?? 'NO_FREE_SLOTS';
    return {
      reason_code: reason,
      owners: explained.map((e, i) => ({ owner_email: e.key, required: loaded[i].required, reasons: e.reasons, free_slots: e.freeSlots })),
    };
  });
  const length = common.durationMinutes * 60_000;
  Object.assign(extra, await timed(x.clock, 'next_available', () => groupNextAvailable(x, x.window.end.getTime() - length + 1, lookaheadEnd, x.known)));
  if (x.warnings.length) extra.warnings = x.warnings;
  return new DomainError('NO_SLOTS_AVAILABLE', `No slot the whole group can take in the window (${String(extra.reason_code)})`, { extra });
}

/**
 * `next_available` of a group refusal, as a one-owner refusal answers it (docs/api.md
 * "Search"): the earliest slot every required owner accepts (quorum included) starting in
 * [from, lookaheadEnd], in the first owner's zone; else `next_available_exceeds_lookahead:
 * true` when one starts in the 14 days after; else `next_available: null`.
 */
async function groupNextAvailable(x: NextInput, from: number, lookaheadEnd: number, known?: Known): Promise<Record<string, unknown>> {
  const next = await nextInChunks(x, from, lookaheadEnd, known);
  if (next) return { next_available: localSpan(next.start, next.end, x.loaded[0].target.owner.timeZone) };
  const later = await nextInChunks(x, lookaheadEnd + 1, lookaheadEnd + BEYOND_LOOKAHEAD_MS);
  return later ? { next_available_exceeds_lookahead: true } : { next_available: null };
}

/**
 * A refused group window hold (docs/groups.md "Refusals"): the next slot that suits every
 * owner, through the collective search. Free time only (a window hold never preempts; its
 * next_available neither), looked for from the window's start as a one-owner window hold does,
 * with the facts read in the hold's transaction (its calendar gates already ran).
 */
export function groupWindowNextAvailable(
  tx: Executor,
  actor: AgentActor,
  targets: readonly SchedulingTarget[],
  input: { window: { start: Date; end: Date }; durationMinutes: number; lookaheadHours?: number },
  now: Date,
  policy: (p: RequestPolicy) => RequestPolicy,
): Promise<Record<string, unknown>> {
  const x: NextInput = {
    db: tx,
    actor,
    loaded: targets.map((target) => ({ target, required: true })),
    ids: targets.map((t) => t.owner.id),
    common: { now: now.getTime(), durationMinutes: input.durationMinutes, stepMinutes: DEFAULT_STEP_MINUTES, minOptional: 0 },
    now,
    policy,
    load: (from, to) => loadGroupClaims(tx, targets.map((t) => t.owner.id), from, to, now),
  };
  return groupNextAvailable(x, input.window.start.getTime(), input.window.end.getTime() + (input.lookaheadHours ?? DEFAULT_LOOKAHEAD_HOURS) * HOUR);
}

/**
 * The first group slot starting in [from, latestStart]. With `known` (the members a search built
 * from facts already read), the starts those facts judge exactly (lastStartOnFacts: every local
 * day the slot touches lies inside them) are searched first, with no read; the rest with the
 * owners' facts read NEXT_CHUNK_MS at a time. The earliest slot either way: the same answer as
 * reading every chunk.
 */
async function nextInChunks(x: NextInput, from: number, latestStart: number, known?: Known): Promise<Interval | null> {
  const length = x.common.durationMinutes * 60_000;
  const load = x.load ?? ((a: Date, b: Date) => loadGroupClaimsGated(x.db, x.ids, a, b, x.now));
  let start = Math.max(from, x.now.getTime());
  if (known && start <= latestStart) {
    const all = [...known.members.required, ...known.members.optional];
    const last = Math.min(lastStartOnFacts(all, known.facts, start, x.common.durationMinutes), latestStart);
    if (last >= start) {
      const next = nextGroupSlot({ ...x.common, ...known.members, from: start, latestStart: last });
      if (next) return next;
      start = last + 1;
    }
  }
  for (; start <= latestStart; start += NEXT_CHUNK_MS) {
    const last = Math.min(start + NEXT_CHUNK_MS - 1, latestStart);
    const claims = await load(new Date(start - DAY_MARGIN), new Date(last + length + DAY_MARGIN));
    const next = nextGroupSlot({ ...x.common, ...membersOf(x.loaded, x.actor, claims, x.now.getTime(), x.policy), from: start, latestStart: last });
    if (next) return next;
  }
  return null;
}
