import { and, asc, eq, gte } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, owners } from '@/db/schema';
import { assertOwnerInScope, type AgentActor } from '../access';
import type { OwnerActor } from '../adminAudit';
import { invalidField } from '../errors';
import { isUuid } from '../ids';
import { recordWebhookEvent } from '../webhooks/outbox';
import type { ClaimMemberRow, NamedClaim } from './groupMembers';

/** What a cancel, confirm, release or reschedule of an occurrence of a series takes (docs/arbitration.md "Recurring series"). */
export type CancelScope = 'occurrence' | 'following' | 'series';
export type SeriesScope = CancelScope;

/**
 * The occurrences a cancel, release, confirm or reschedule with a scope names, as one claim of N
 * members (acted on together through the claim runner): the booking's (or hold's) series from it
 * on (`following`), all of it (`series`), or, for the owner's dashboard, the booking alone
 * (`occurrence`). Null when the id names no claim of that kind; one outside a series is a 400 on
 * scope. An agent's owner scope covers each; an owner (the dashboard) names only their own.
 */
export async function seriesNamedBy(db: Executor, actor: AgentActor | OwnerActor, id: string, scope: CancelScope, kind: 'hold' | 'booking' = 'booking'): Promise<NamedClaim | null> {
  if (!isUuid(id)) return null;
  const own = actor.kind === 'owner' ? eq(claims.ownerId, actor.ownerId) : undefined;
  const inScope = (email: string) => (actor.kind === 'agent' ? assertOwnerInScope(actor, email) : undefined);
  const [named] = await db
    .select({ seriesId: claims.seriesId, startAt: claims.startAt, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.id, id), eq(claims.customerId, actor.customerId), eq(claims.kind, kind), own));
  if (!named) return null;
  inScope(named.ownerEmail);
  if (!named.seriesId) throw invalidField('scope', `the ${kind} is not an occurrence of a recurring series: leave scope out`);
  const which = scope === 'occurrence' ? eq(claims.id, id) : scope === 'following' ? gte(claims.startAt, named.startAt) : undefined;
  const rows = await db
    .select({ id: claims.id, ownerEmail: owners.email })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.seriesId, named.seriesId), eq(claims.customerId, actor.customerId), eq(claims.kind, kind), own, which))
    .orderBy(asc(claims.startAt));
  for (const r of rows) inScope(r.ownerEmail);
  return { groupId: null, members: rows };
}

/**
 * `series.cancelled` (docs/webhooks.md, docs/api.md 8e): one event per series a cancel touched,
 * beside each occurrence's `booking.cancelled`, to the series' agent: the scope asked, the
 * occurrences it cancelled (in start order), the reason. Like booking.cancelled, the agent's own cancel is an own
 * event (endpoints with include_own). Call inside the cancel's transaction.
 */
export function recordSeriesCancelled(tx: Executor, actor: AgentActor, cancelled: readonly ClaimMemberRow[], scope: CancelScope, reason: string | undefined, now: Date): Promise<void>[] {
  const bySeries = new Map<string, ClaimMemberRow[]>();
  for (const m of cancelled) if (m.seriesId && m.agentId) bySeries.set(m.seriesId, [...(bySeries.get(m.seriesId) ?? []), m]);
  return [...bySeries].map(([seriesId, members]) => {
    // In the occurrences' order (the cancel locked them in its own).
    const ms = [...members].sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    const data = { series_id: seriesId, owner_email: ms[0].ownerEmail, scope, booking_ids: ms.map((m) => m.id), reason: reason ?? null };
    return recordWebhookEvent(tx, { agentId: ms[0].agentId!, kind: 'series.cancelled', data, now, actor: { kind: 'agent', agentId: actor.agentId }, own: ms[0].agentId === actor.agentId });
  });
}
