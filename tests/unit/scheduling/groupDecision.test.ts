import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideGroup, preemptedSet, type ClaimGroupFact } from '@/server/domain/claims/groupDecision';
import { commonStretches } from '@/server/domain/claims/windowHold';
import type { Decision } from '@/server/domain/scheduling';

/**
 * The group decision (docs/groups.md, "Group holds and bookings") is a pure function over the
 * members' facts: accepted iff every required owner accepts; the preempted set is exactly the
 * union of the members' preemptions plus the whole groups they belong to.
 */

const claimId = fc.integer({ min: 0, max: 29 }).map((n) => `c${n}`);
const groupOf = fc.option(fc.integer({ min: 0, max: 5 }).map((n) => `g${n}`), { nil: null });
const accept = fc.array(claimId, { maxLength: 6 }).map((preempt): Decision => ({ outcome: 'accept', preempt: [...new Set(preempt)], warnings: [] }));
const refuse = fc.constantFrom<Decision>(
  { outcome: 'past_time' },
  { outcome: 'reject', reason: 'NO_CAPACITY', failedReason: 'NO_CAPACITY', alternatives: [], conflicts: [], warnings: [] },
  { outcome: 'counter_propose', reason: 'COUNTER_PROPOSED', failedReason: 'MAX_DAILY_HOURS', alternatives: [], conflicts: [], warnings: [] },
);
/** Thirty claims, each in at most one group; groupMembers lists each group's claims. */
const world = fc.array(groupOf, { minLength: 30, maxLength: 30 }).map((groups) => {
  const claims: ClaimGroupFact[] = groups.map((g, i) => ({ id: `c${i}`, groupId: g }));
  const groupMembers = new Map<string, string[]>();
  for (const c of claims) if (c.groupId) groupMembers.set(c.groupId, [...(groupMembers.get(c.groupId) ?? []), c.id]);
  return { claims, groupMembers };
});

describe('decideGroup', () => {
  it('accepted iff every required owner accepts; a refusal lists exactly the refusing members', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(accept, refuse), { minLength: 2, maxLength: 20 }), world, (decisions, w) => {
        const members = decisions.map((decision, i) => ({ member: i, decision }));
        const verdict = decideGroup(members, w.claims, w.groupMembers);
        const allAccept = decisions.every((d) => d.outcome === 'accept');
        expect(verdict.accepted).toBe(allAccept);
        if (!verdict.accepted) expect(verdict.refusing.map((r) => r.member)).toEqual(members.filter((m) => m.decision.outcome !== 'accept').map((m) => m.member));
      }),
    );
  });

  it('the preempted set is exactly the union of the members\u2019 preemptions plus the whole groups they belong to', () => {
    fc.assert(
      fc.property(fc.array(accept, { minLength: 2, maxLength: 20 }), world, (decisions, w) => {
        const verdict = decideGroup(decisions.map((decision, i) => ({ member: i, decision })), w.claims, w.groupMembers);
        expect(verdict.accepted).toBe(true);
        if (!verdict.accepted) return;
        const direct = new Set(decisions.flatMap((d) => (d.outcome === 'accept' ? d.preempt : [])));
        const groups = new Set(w.claims.filter((c) => direct.has(c.id) && c.groupId).map((c) => c.groupId));
        const expected = new Set([...direct, ...w.claims.filter((c) => c.groupId && groups.has(c.groupId)).map((c) => c.id)]);
        expect(new Set(verdict.preempt)).toEqual(expected);
        expect(verdict.preempt).toHaveLength(expected.size); // no duplicates
        expect(new Set(verdict.preemptedGroups)).toEqual(groups);
      }),
    );
  });

  it('a group is never partially preempted: every member of a hit group is in the set', () => {
    fc.assert(
      fc.property(fc.array(claimId, { maxLength: 10 }), world, (direct, w) => {
        const { preempt } = preemptedSet(direct, w.claims, w.groupMembers);
        const set = new Set(preempt);
        for (const [, members] of w.groupMembers) {
          const hit = members.filter((m) => set.has(m)).length;
          expect(hit === 0 || hit === members.length).toBe(true);
        }
      }),
    );
  });

  it('no member: not accepted', () => {
    expect(decideGroup([], [], new Map()).accepted).toBe(false);
  });
});

describe('commonStretches', () => {
  it('the stretches of the wanted length inside every owner\u2019s free time', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 95 }), fc.integer({ min: 1, max: 16 })), { maxLength: 6 }), { minLength: 2, maxLength: 5 }),
        fc.integer({ min: 1, max: 6 }),
        (owners, length) => {
          // Each owner's free time: disjoint sorted intervals (quarter hours).
          const perOwner = owners.map((list) => {
            const out: { start: number; end: number }[] = [];
            for (const [s, l] of [...list].sort((x, y) => x[0] - y[0])) {
              const start = Math.max(s, out.length ? out[out.length - 1].end + 1 : 0);
              out.push({ start, end: start + l });
            }
            return out;
          });
          const common = commonStretches(perOwner, length);
          const free = (t: number) => perOwner.every((list) => list.some((r) => r.start <= t && t < r.end));
          for (const r of common) {
            expect(r.end - r.start).toBeGreaterThanOrEqual(length);
            for (let t = r.start; t < r.end; t++) expect(free(t)).toBe(true);
          }
          // Every quarter free for all owners inside a long enough common run is covered.
          for (let t = 0; t < 200; t++) {
            if (!free(t)) continue;
            let s = t;
            while (s > 0 && free(s - 1)) s--;
            let e = t;
            while (free(e)) e++;
            if (e - s >= length) expect(common.some((r) => r.start <= t && t < r.end)).toBe(true);
          }
        },
      ),
    );
  });
});
