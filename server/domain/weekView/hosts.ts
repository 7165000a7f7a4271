import { and, asc, eq, inArray, isNull, ne } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, owners } from '@/db/schema';

/**
 * The other hosts of the owner's group holds and bookings (docs/groups.md; docs/dashboard.md
 * "Calendar"): a group is one claim per owner sharing a `group_id`, so the co-hosts of a
 * member are the other members of its kind. Each with name, email and that member's status
 * (a hold past its expiry reads expired). One statement for every group of a week.
 */
export type CoHost = { email: string; name: string | null; status: string };

const key = (groupId: string, kind: 'hold' | 'booking') => `${kind}:${groupId}`;

export type CoHostsOf = (groupId: string | null, kind: 'hold' | 'booking') => CoHost[];

export async function coHosts(db: Executor, ownerId: string, groupIds: readonly (string | null)[], now: Date): Promise<CoHostsOf> {
  const ids = [...new Set(groupIds.filter((g): g is string => !!g))];
  const found = new Map<string, CoHost[]>();
  if (ids.length) {
    const rows = await db
      .select({ groupId: claims.groupId, kind: claims.kind, status: claims.status, expiresAt: claims.expiresAt, email: owners.email, name: owners.name })
      .from(claims)
      .innerJoin(owners, eq(owners.id, claims.ownerId))
      .where(and(inArray(claims.groupId, ids), isNull(claims.partOfHoldId), ne(claims.ownerId, ownerId)))
      .orderBy(asc(owners.email));
    for (const r of rows) {
      const status = r.kind === 'hold' && r.status === 'active' && r.expiresAt && r.expiresAt <= now ? 'expired' : r.status;
      const k = key(r.groupId!, r.kind);
      found.set(k, [...(found.get(k) ?? []), { email: r.email, name: r.name, status }]);
    }
  }
  return (groupId, kind) => (groupId ? (found.get(key(groupId, kind)) ?? []) : []);
}
