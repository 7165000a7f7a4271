import { and, asc, eq, gte } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import { invalidField } from '../errors';
import { isUuid } from '../ids';
import type { NamedClaim } from './groupMembers';

/** What a cancel, confirm, release or reschedule of an occurrence of a series takes (docs/arbitration.md "Recurring series"). */
export type CancelScope = 'occurrence' | 'following' | 'series';
export type SeriesScope = CancelScope;

/**
 * The occurrences a cancel, release, confirm or reschedule with scope `following` or `series`
 * names, as one claim of N members (acted on together through the claim runner): the booking's
 * (or hold's) series from it on, or all of it. Null when the id names no claim of that kind; one
 * outside a series is a 400 on scope.
 */
export async function seriesNamedBy(db: Executor, actor: AgentActor, id: string, scope: Exclude<CancelScope, 'occurrence'>, kind: 'hold' | 'booking' = 'booking'): Promise<NamedClaim | null> {
  if (!isUuid(id)) return null;
  const [named] = await db
    .select({ seriesId: claims.seriesId, startAt: claims.startAt, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.id, id), eq(claims.customerId, actor.customerId), eq(claims.kind, kind)));
  if (!named) return null;
  assertOwnerInScope(actor, named.ownerEmail);
  if (!named.seriesId) throw invalidField('scope', `the ${kind} is not an occurrence of a recurring series: leave scope out`);
  const rows = await db
    .select({ id: claims.id, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.seriesId, named.seriesId), eq(claims.customerId, actor.customerId), eq(claims.kind, kind), scope === 'following' ? gte(claims.startAt, named.startAt) : undefined))
    .orderBy(asc(claims.startAt));
  for (const r of rows) assertOwnerInScope(actor, r.ownerEmail);
  return { groupId: null, members: rows };
}
