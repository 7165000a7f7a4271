/**
 * Property: a bumped booking's replacement slot (docs/arbitration.md "Bumped meetings rebooked";
 * nearestAlternative, the alternatives search for one slot) never overlaps any claim, the
 * preempting one included, nor any claim's buffers or its own, never preempts anything, is
 * accepted by arbitrate() for the same request, and is the nearest such slot.
 */
import { expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { arbitrate, nearestAlternative, type Claim, type OwnerRules, type RequestPolicy } from '@/server/domain/scheduling';
import { at, H, MIN, week } from './helpers';

vi.setConfig({ testTimeout: 120_000 });
const ANCHOR = at('2026-06-01T00:00Z'); // a Monday
const NOW = ANCHOR + 7 * H;
const bufferArb = fc.constantFrom(0, 0, 5, 15, 30).map((m) => m * MIN);

const rulesArb: fc.Arbitrary<OwnerRules> = fc.record({
  timeZone: fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kathmandu'),
  workingHours: fc.constantFrom(null, week([{ start: '08:00', end: '18:00' }])),
  hardBlocks: fc.constant([]),
  maxDailyMeetingHours: fc.constantFrom(null, 6),
  bufferExternalEvents: fc.boolean(),
});

/** The owner's claims, never overlapping one another (as the database keeps them). */
const claimsArb = fc
  .array(fc.record({ gap: fc.integer({ min: 0, max: 12 }), len: fc.integer({ min: 1, max: 8 }), priority: fc.integer({ min: 0, max: 9 }), external: fc.boolean(), before: bufferArb, after: bufferArb }), { minLength: 1, maxLength: 30 })
  .map((items) => {
    let t = ANCHOR + 8 * H;
    return items.map((c, i): Claim => {
      const start = t + c.gap * 15 * MIN;
      t = start + c.len * 15 * MIN;
      if (c.external) return { id: `c${i}`, kind: 'booking', start, end: t, countedMinutes: c.len * 15, priority: Number.MAX_SAFE_INTEGER, sacred: true, external: true };
      return { id: `c${i}`, kind: i % 3 ? 'booking' : 'hold', start, end: t, countedMinutes: c.len * 15, priority: c.priority, sacred: false, bufferBeforeMs: c.before, bufferAfterMs: c.after };
    });
  });

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;
/** The naive buffer rule (docs/arbitration.md "Buffers"): [s, e) with buffers b/a is in the way of a claim when either side's buffered range overlaps the other. */
function inTheWay(slot: { start: number; end: number }, policy: RequestPolicy, c: Claim, rules: OwnerRules): boolean {
  const reach = !c.external || rules.bufferExternalEvents;
  const mine = reach ? { start: slot.start - (policy.bufferBeforeMs ?? 0), end: slot.end + (policy.bufferAfterMs ?? 0) } : slot;
  return overlaps(mine, c) || overlaps(slot, { start: c.start - (c.bufferBeforeMs ?? 0), end: c.end + (c.bufferAfterMs ?? 0) });
}

it('the replacement never overlaps a claim (the preempting one included), is accepted as free time, and is the nearest', () => {
  fc.assert(
    fc.property(
      rulesArb,
      claimsArb,
      fc.nat(),
      fc.integer({ min: -3, max: 3 }),
      fc.integer({ min: 1, max: 8 }),
      bufferArb,
      bufferArb,
      (rules, owned, pick, shift, len, before, after) => {
        const candidates = owned.filter((c) => c.kind === 'booking' && !c.external);
        fc.pre(candidates.length > 0);
        const bumped = candidates[pick % candidates.length];
        // The preempting claim overlaps the bumped booking; what else it overlaps gave way with it.
        const bumpStart = bumped.start + shift * 15 * MIN;
        const bumping: Claim = { id: 'bumping', kind: 'booking', start: bumpStart, end: bumpStart + len * 15 * MIN, countedMinutes: len * 15, priority: 50, sacred: false, bufferBeforeMs: before, bufferAfterMs: after };
        fc.pre(overlaps(bumping, bumped));
        const claims = [...owned.filter((c) => c.id !== bumped.id && (c.external || !overlaps(c, bumping))), bumping];
        const policy: RequestPolicy = { priority: bumped.priority, preemptPolicy: 'never', agentCanPreempt: false, bufferBeforeMs: bumped.bufferBeforeMs, bufferAfterMs: bumped.bufferAfterMs };
        const request = { ...policy, start: bumped.start, end: bumped.end };
        const context = { now: NOW, rules, claims };
        const slot = nearestAlternative(request, context);
        if (!slot) return;
        expect(slot.end - slot.start).toBe(bumped.end - bumped.start);
        expect(slot.start).toBeGreaterThanOrEqual(NOW);
        for (const c of claims) expect(inTheWay(slot, policy, c, rules), `${c.id} in the way of ${slot.start}`).toBe(false);
        expect(arbitrate({ ...policy, ...slot }, context)).toMatchObject({ outcome: 'accept', preempt: [] });
        // Nearest: every quarter hour strictly nearer (other than the booking's own start) is refused.
        const d = Math.abs(slot.start - bumped.start);
        for (let t = bumped.start - d + 15 * MIN; t < bumped.start + d; t += 15 * MIN) {
          if (t === bumped.start || t < NOW) continue;
          expect(arbitrate({ ...policy, start: t, end: t + (bumped.end - bumped.start) }, context).outcome, `nearer ${t}`).not.toBe('accept');
        }
      },
    ),
    { numRuns: 150 },
  );
});
