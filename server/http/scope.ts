import type { Db } from '@/server/db';
import { resolveOwnerEmail, resolveOwnerEmails, type AgentActor } from '@/server/domain/access';
import type { GateOwner } from '@/server/domain/claims';
import { ensureCalendarsUsable } from '@/server/domain/calendars/mirror';
import type { ParsedInput } from './input';
import type { AnyOperation } from './operation';

/** What the scope step settles: the owner an `owner` call acts on, and the calendar gate its claim runs behind (`gate: 'claim'`). */
export type ResolvedScope = { ownerEmail: string; gate?: GateOwner };

const NOBODY: ResolvedScope = { ownerEmail: '' };

/**
 * Step: resolve scope (the operation's `scope`, server/http/operation.ts CallScope). An
 * `owner` call's owner is resolved and checked against the agent's owner_scope, and its
 * calendar gate runs here (before the Idempotency-Key) unless the operation hands it to the
 * claim or has none; a `group` call's owners are each checked; `pool` and `none` leave scope
 * to the domain. A refusal here is audited as denied and stores nothing under the key.
 */
export async function resolveScope(op: AnyOperation, input: ParsedInput, actor: AgentActor | null, db: Db, now: Date): Promise<ResolvedScope> {
  if (!op.scope || !actor) return NOBODY;
  const named = op.scope.of(input);
  if (named.kind === 'group') {
    resolveOwnerEmails(actor, named.emails);
    return NOBODY;
  }
  if (named.kind !== 'owner') return NOBODY;
  const ownerEmail = resolveOwnerEmail(actor, named.email);
  if (!ownerEmail || op.scope.gate === false) return { ownerEmail };
  const gate = { owner: { customerId: actor.customerId, email: ownerEmail }, now };
  if (op.scope.gate === 'claim') return { ownerEmail, gate };
  await ensureCalendarsUsable(db, gate.owner, now);
  return { ownerEmail };
}
