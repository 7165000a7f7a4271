import { describe, expect, it } from 'vitest';
import { assignmentOrder, assignmentReason, type MemberLoad } from '@/server/domain/pools/assignment';

/** The pool's assignment rule (docs/groups.md, "Pools"): load / weight, then least recently booked, then owner id. */
const m = (ownerId: string, weight: number, loadMinutes: number, lastBookedAt: number | null = null): MemberLoad => ({ ownerId, email: `${ownerId}@example.com`, weight, loadMinutes, lastBookedAt });

describe('assignmentOrder', () => {
  it('orders by load divided by weight, exactly', () => {
    // 60/2 = 30 < 40/1; 90/3 = 30 ties with 60/2 and is broken by recency
    const order = assignmentOrder([m('a', 1, 40), m('b', 2, 60, 5), m('c', 3, 90, 3)]);
    expect(order.map((x) => x.ownerId)).toEqual(['c', 'b', 'a']);
    expect(assignmentReason(order)).toBe('least_recently_booked');
    expect(assignmentReason(order.slice(1))).toBe('lowest_weighted_load');
  });

  it('puts a member never booked before one booked, then orders by owner id', () => {
    expect(assignmentOrder([m('b', 1, 0, 10), m('a', 1, 0, null)]).map((x) => x.ownerId)).toEqual(['a', 'b']);
    const tie = assignmentOrder([m('z', 2, 0), m('y', 1, 0)]);
    expect(tie.map((x) => x.ownerId)).toEqual(['y', 'z']);
    expect(assignmentReason(tie)).toBe('owner_order');
    expect(assignmentReason([m('only', 1, 0)])).toBe('only_candidate');
  });

  it('keeps shares of booked minutes within 5 % of the weights over 1,000 bookings of random length (the rule alone)', () => {
    const weights = [1, 1, 2, 2, 4];
    const members = weights.map((w, i) => m(`host${i}`, w, 0));
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 1000; i++) {
      const chosen = assignmentOrder(members)[0];
      chosen.loadMinutes += [15, 30, 45, 60, 90][Math.floor(rnd() * 5)];
      chosen.lastBookedAt = i;
    }
    const total = members.reduce((s, x) => s + x.loadMinutes, 0);
    for (const x of members) {
      const target = x.weight / 10;
      expect(Math.abs(x.loadMinutes / total - target) / target, x.ownerId).toBeLessThanOrEqual(0.05);
    }
  });
});
