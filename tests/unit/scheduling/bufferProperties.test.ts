/**
 * Property-based tests of buffers (docs/arbitration.md "Buffers"), against a naive reference: a
 * request [s, e) with buffers b/a is in a meeting's way when [s - b, e + a) overlaps the meeting,
 * or [s, e) overlaps the meeting's own buffered range; provider busy time has no buffers and is
 * reached by the request's only when the owner asks (bufferExternalEvents).
 */
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import {
  arbitrate,
  findHoldStretch,
  groupMembers,
  searchGroupSlots,
  searchSlots,
  type Claim,
  type OwnerRules,
  type RequestPolicy,
} from '@/server/domain/scheduling';
import { at, H, MIN, week } from './helpers';

vi.setConfig({ testTimeout: 60_000 });
const RUNS = { numRuns: 150 };
const ANCHOR = at('2026-06-01T00:00Z'); // a Monday
const bufferArb = fc.constantFrom(0, 0, 5, 10, 15, 30, 60, 240).map((m) => m * MIN);

const rulesArb: fc.Arbitrary<OwnerRules> = fc.record({
  timeZone: fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kathmandu'),
  workingHours: fc.constantFrom(null, week([{ start: '08:00', end: '18:00' }]), week([{ start: '00:00', end: '24:00' }], ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'])),
  hardBlocks: fc.constant([]),
  maxDailyMeetingHours: fc.constantFrom(null, null, 6),
  bufferExternalEvents: fc.boolean(),
});
const policyArb: fc.Arbitrary<RequestPolicy> = fc.record({
  priority: fc.integer({ min: 0, max: 9 }),
  preemptPolicy: fc.constantFrom('preempt_lower' as const, 'never' as const),
  agentCanPreempt: fc.boolean(),
  bufferBeforeMs: bufferArb,
  bufferAfterMs: bufferArb,
});

/** Claims as the database keeps them: never overlapping one another; buffers and provider busy time at random. */
const claimsArb: fc.Arbitrary<Claim[]> = fc
  .array(
    fc.record({ gap: fc.integer({ min: 0, max: 16 }), len: fc.integer({ min: 1, max: 12 }), priority: fc.integer({ min: 0, max: 9 }), sacred: fc.boolean(), external: fc.boolean(), before: bufferArb, after: bufferArb }),
    { maxLength: 30 },
  )
  .map((items) => {
    let t = ANCHOR + 6 * H;
    return items.map((c, i) => {
      const start = t + c.gap * 15 * MIN;
      t = start + c.len * 15 * MIN;
      const claim: Claim = { id: `c${i}`, kind: 'booking', start, end: t, countedMinutes: c.len * 15, priority: c.external ? Number.MAX_SAFE_INTEGER : c.priority, sacred: c.external || c.sacred };
      if (c.external) claim.external = true;
      else Object.assign(claim, { bufferBeforeMs: c.before, bufferAfterMs: c.after });
      return claim;
    });
  });

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

/** The naive rule: is [start, end) with the policy's buffers clear of `c` (and of c's buffers)? */
function clearOf(rules: OwnerRules, c: Claim, policy: RequestPolicy, start: number, end: number): boolean {
  const ours = !c.external || rules.bufferExternalEvents;
  const buffered = { start: start - (ours ? (policy.bufferBeforeMs ?? 0) : 0), end: end + (ours ? (policy.bufferAfterMs ?? 0) : 0) };
  const theirs = { start: c.start - (c.bufferBeforeMs ?? 0), end: c.end + (c.bufferAfterMs ?? 0) };
  return !overlaps(buffered, c) && !overlaps({ start, end }, theirs);
}

const startArb = fc.integer({ min: 4 * 4, max: 4 * 24 * 2 }).map((q) => ANCHOR + q * 15 * MIN);
const durationArb = fc.integer({ min: 1, max: 8 }).map((q) => q * 15);

describe('buffer properties', () => {
  it('an accepted claim keeps clear of every meeting it does not preempt, buffers both ways; a refusal for claims names one in the way', () => {
    fc.assert(
      fc.property(rulesArb, claimsArb, policyArb, startArb, durationArb, (rules, claims, policy, start, minutes) => {
        const end = start + minutes * MIN;
        const d = arbitrate({ start, end, ...policy }, { now: ANCHOR, rules, claims });
        if (d.outcome === 'accept') {
          for (const c of claims) if (!d.preempt.includes(c.id)) expect(clearOf(rules, c, policy, start, end)).toBe(true);
          // What it preempts is exactly what is in its way.
          for (const id of d.preempt) expect(clearOf(rules, claims.find((c) => c.id === id)!, policy, start, end)).toBe(false);
        } else if (d.outcome !== 'past_time') {
          // Every alternative is clear of what it does not preempt (it is accepted), buffers both ways.
          for (const alt of d.alternatives) {
            const again = arbitrate({ ...alt, ...policy }, { now: ANCHOR, rules, claims });
            expect(again.outcome).toBe('accept');
          }
          // A buffer conflict is named exactly for a meeting the slot does not overlap but is not clear of.
          const named = d.conflicts.filter((c) => c.kind === 'buffer').length;
          const inBuffer = claims.filter((c) => !overlaps(c, { start, end }) && !clearOf(rules, c, policy, start, end));
          expect(named > 0).toBe(inBuffer.length > 0);
        }
      }),
      RUNS,
    );
  });

  it('claims accepted one after another never have a buffered range over another meeting (no accepted claim is in another\'s way)', () => {
    fc.assert(
      fc.property(
        rulesArb,
        fc.array(fc.tuple(policyArb, startArb, durationArb), { minLength: 1, maxLength: 25 }),
        (rules, requests) => {
          let claims: Claim[] = [];
          requests.forEach(([policy, start, minutes], i) => {
            const end = start + minutes * MIN;
            const d = arbitrate({ start, end, ...policy }, { now: ANCHOR, rules, claims });
            if (d.outcome !== 'accept') return;
            claims = claims.filter((c) => !d.preempt.includes(c.id));
            claims.push({ id: `r${i}`, kind: 'booking', start, end, countedMinutes: minutes, priority: policy.priority, sacred: false, bufferBeforeMs: policy.bufferBeforeMs, bufferAfterMs: policy.bufferAfterMs });
          });
          for (const x of claims) {
            for (const y of claims) {
              if (x === y) continue;
              expect(overlaps({ start: x.start - (x.bufferBeforeMs ?? 0), end: x.end + (x.bufferAfterMs ?? 0) }, y)).toBe(false);
            }
          }
        },
      ),
      RUNS,
    );
  });

  it('a slot offered by search is accepted by a booking, and one it leaves out for claims is not', () => {
    fc.assert(
      fc.property(rulesArb, claimsArb, policyArb, durationArb, fc.integer({ min: 0, max: 24 * 4 }), (rules, claims, policy, minutes, offset) => {
        const window = { start: ANCHOR + 6 * H + offset * 15 * MIN, end: ANCHOR + 6 * H + offset * 15 * MIN + 12 * H };
        const res = searchSlots({ rules, claims, now: ANCHOR, window, durationMinutes: minutes, stepMinutes: 15, maxResults: 500, request: policy });
        const offered = new Set(res.slots.map((s) => s.start));
        for (const slot of res.slots) {
          const d = arbitrate({ start: slot.start, end: slot.end, ...policy }, { now: ANCHOR, rules, claims });
          expect(d.outcome).toBe('accept');
          if (d.outcome === 'accept' && !slot.preempts) for (const c of claims) expect(clearOf(rules, c, policy, slot.start, slot.end)).toBe(true);
        }
        // Completeness on the grid: every grid start the arbiter accepts is offered.
        for (let t = window.start; t + minutes * MIN <= window.end; t += 15 * MIN) {
          const d = arbitrate({ start: t, end: t + minutes * MIN, ...policy }, { now: ANCHOR, rules, claims });
          expect(offered.has(t)).toBe(d.outcome === 'accept');
        }
      }),
      RUNS,
    );
  });

  it('a window hold\'s stretch keeps clear of every claim and its buffers, with the request\'s own', () => {
    fc.assert(
      fc.property(rulesArb, claimsArb, policyArb, durationArb, (rules, claims, policy, minutes) => {
        const request = { ...policy, preemptPolicy: 'never' as const, agentCanPreempt: false };
        const window = { start: ANCHOR + 6 * H, end: ANCHOR + 30 * H };
        const stretch = findHoldStretch({ rules, claims, now: ANCHOR, durationMinutes: minutes, request, window });
        if (stretch) for (const c of claims) expect(clearOf(rules, c, request, stretch.start, stretch.end)).toBe(true);
      }),
      RUNS,
    );
  });

  it('a collective slot is accepted by each member with its own buffers', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(rulesArb, claimsArb), { minLength: 2, maxLength: 3 }), policyArb, durationArb, (owners, policy, minutes) => {
        const facts = owners.map(([rules, claims], i) => ({ key: `o${i}`, rules, claims, request: policy }));
        const members = groupMembers(facts, ANCHOR);
        const window = { start: ANCHOR + 6 * H, end: ANCHOR + 30 * H };
        const { slots } = searchGroupSlots({ required: members, optional: [], window, now: ANCHOR, durationMinutes: minutes, stepMinutes: 15, maxResults: 200, minOptional: 0 });
        for (const slot of slots) {
          for (const [rules, claims] of owners) expect(arbitrate({ start: slot.start, end: slot.end, ...policy }, { now: ANCHOR, rules, claims }).outcome).toBe('accept');
        }
      }),
      RUNS,
    );
  });
});
