import type { PoolAssignmentReason } from '@/db/schema';

/**
 * The pure rule a pool picks its member by (docs/groups.md, "Pools"): the lowest weighted
 * load (booked minutes in the trailing 7 days divided by weight), ties to the least recently
 * booked (never booked first), then owner id. No database, no clock.
 */
export type MemberLoad = {
  ownerId: string;
  email: string;
  weight: number;
  /** Minutes of confirmed bookings made through the pool in the trailing 7 days. */
  loadMinutes: number;
  /** When the member's last booking through the pool was made (epoch ms), null if never. */
  lastBookedAt: number | null;
};

/** Negative when `a` comes first. Loads compare exactly (cross-multiplied, no division). */
function compareMembers(a: MemberLoad, b: MemberLoad): number {
  const byLoad = a.loadMinutes * b.weight - b.loadMinutes * a.weight;
  if (byLoad !== 0) return byLoad;
  const byRecency = (a.lastBookedAt ?? -Infinity) - (b.lastBookedAt ?? -Infinity);
  if (byRecency !== 0 && !Number.isNaN(byRecency)) return byRecency;
  return a.ownerId < b.ownerId ? -1 : a.ownerId > b.ownerId ? 1 : 0;
}

/** The members in the order the pool tries them. */
export function assignmentOrder<T extends MemberLoad>(members: readonly T[]): T[] {
  return [...members].sort(compareMembers);
}

/** Why `chosen` (the first of `order`) won over the next one: the rule that separated them. */
export function assignmentReason(order: readonly MemberLoad[]): PoolAssignmentReason {
  const [chosen, next] = order;
  if (!next) return 'only_candidate';
  if (chosen.loadMinutes * next.weight !== next.loadMinutes * chosen.weight) return 'lowest_weighted_load';
  if ((chosen.lastBookedAt ?? -Infinity) !== (next.lastBookedAt ?? -Infinity)) return 'least_recently_booked';
  return 'owner_order';
}
