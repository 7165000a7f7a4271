import { and, asc, eq, gte } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import type { OwnerActor } from '../adminAudit';
import { invalidField } from '../errors';
import { isUuid } from '../ids';
import type { NamedClaim } from './groupMembers';

/** What a cancel of an occurrence of a series takes (docs/arbitration.md "Recurring series"). */
export type CancelScope = 'occurrence' | 'following' | 'series';

/**
 * The occurrences a cancel with scope `following` or `series` names, as one claim of N members
 * (cancelClaim acts on each through the claim runner): the booking's series from the booking on,
 * or all of it; with scope `occurrence` (the owner's dashboard), the booking alone. Null when the
 * id names no booking; a booking outside a series is a 400 on scope. An agent's owner scope
 * covers each; an owner (the dashboard) names only their own.
 */
export async function seriesNamedBy(db: Executor, actor: AgentActor | OwnerActor, id: string, scope: CancelScope): Promise<NamedClaim | null> {
  if (!isUuid(id)) return null;
  const own = actor.kind === 'owner' ? eq(claims.ownerId, actor.ownerId) : undefined;
  const inScope = (email: string) => (actor.kind === 'agent' ? assertOwnerInScope(actor, email) : undefined);
  const [named] = await db
    .select({ seriesId: claims.seriesId, startAt: claims.startAt, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.id, id), eq(claims.customerId, actor.customerId), eq(claims.kind, 'booking'), own));
  if (!named) return null;
  inScope(named.ownerEmail);
  if (!named.seriesId) throw invalidField('scope', 'the booking is not an occurrence of a recurring series: cancel it without scope');
  const which = scope === 'occurrence' ? eq(claims.id, id) : scope === 'following' ? gte(claims.startAt, named.startAt) : undefined;
  const rows = await db
    .select({ id: claims.id, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.seriesId, named.seriesId), eq(claims.customerId, actor.customerId), own, which))
    .orderBy(asc(claims.startAt));
  for (const r of rows) inScope(r.ownerEmail);
  return { groupId: null, members: rows };
}
