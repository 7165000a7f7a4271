import type { Decision } from '../scheduling';

/**
 * The decision on a group claim (docs/groups.md, "Group holds and bookings"), a pure function
 * over its members' facts: each owner's own arbitration of its member claim, and which group
 * each claim around it belongs to. The group is accepted iff every required owner accepts;
 * what gives way is the union of the members' preemptions plus every member of each group
 * those claims belong to (a meeting with a missing participant is broken).
 */

export type MemberFacts<M = unknown> = { member: M; decision: Decision };

/** A claim some member would preempt, with the group it belongs to (null: none). */
export type ClaimGroupFact = { id: string; groupId: string | null };

export type GroupDecision<M> =
  | { accepted: true; preempt: string[]; preemptedGroups: string[] }
  | { accepted: false; refusing: { member: M; decision: Exclude<Decision, { outcome: 'accept' }> }[] };

/**
 * `claims`: what the members' decisions may preempt, with their groups; `groupMembers`: every
 * claim id of each of those groups (at any owner).
 */
export function decideGroup<M>(members: readonly MemberFacts<M>[], claims: readonly ClaimGroupFact[], groupMembers: ReadonlyMap<string, readonly string[]>): GroupDecision<M> {
  const refusing: { member: M; decision: Exclude<Decision, { outcome: 'accept' }> }[] = [];
  for (const m of members) if (m.decision.outcome !== 'accept') refusing.push({ member: m.member, decision: m.decision });
  if (refusing.length || !members.length) return { accepted: false, refusing };
  return { accepted: true, ...preemptedSet(members.flatMap((m) => (m.decision.outcome === 'accept' ? m.decision.preempt : [])), claims, groupMembers) };
}

/** The claims that give way: `direct` plus every member of each group one of them belongs to. */
export function preemptedSet(direct: readonly string[], claims: readonly ClaimGroupFact[], groupMembers: ReadonlyMap<string, readonly string[]>): { preempt: string[]; preemptedGroups: string[] } {
  const groupOf = new Map(claims.map((c) => [c.id, c.groupId]));
  const out = new Set<string>();
  const groups = new Set<string>();
  for (const id of direct) {
    out.add(id);
    const g = groupOf.get(id);
    if (g) groups.add(g);
  }
  for (const g of groups) for (const id of groupMembers.get(g) ?? []) out.add(id);
  return { preempt: [...out], preemptedGroups: [...groups] };
}
