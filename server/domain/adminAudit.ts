import type { Executor } from '@/db/client';
import { auditLog } from '@/db/schema';
import type { AgentActor } from './access';
import { newId } from './ids';

/** A signed-in owner acting through the dashboard (its transport checked the owner's role). */
export type OwnerActor = { kind: 'owner'; ownerId: string; customerId: string; email: string };

/**
 * Who makes an administrative change: an agent (API key), an owner through
 * the dashboard, or null for a trusted caller with no identity of its own
 * (customer bootstrap, operator scripts). Only agents are checked against a
 * scope and permissions in the domain; an owner's rights are checked by the
 * dashboard transport.
 */
export type AdminActor = AgentActor | OwnerActor | null;

/** Administrative actions in the audit log (docs/api.md, "Audit log"). */
export const ADMIN_ACTIONS = [
  'owner.create',
  'owner.invite',
  'schedule_rules.replace',
  'meeting_class.create',
  'agent.create',
  'agent.update',
  'api_key.mint',
  'api_key.revoke',
  'public_link.create',
  'public_link.update',
  'public_link.delete',
  'public_meeting_type.create',
  'public_meeting_type.update',
  'domain.create',
  'domain.verify',
  'domain.delete',
  'requester_identity.create',
  'requester_credential.mint',
  'requester_credential.revoke',
  'audience.create',
  'audience.update',
  'audience.delete',
  'allocation.create',
  'allocation.delete',
] as const;
export type AdminAction = (typeof ADMIN_ACTIONS)[number];

/** What an administrative change did. Never a secret: `details` is readable by every `read_audit` agent. */
export type AdminChange = {
  action: AdminAction;
  customerId: string;
  /** The calendar owner the change is about (a user-scoped agent sees only its owner's entries). */
  owner?: { id: string; email: string } | null;
  meetingClass?: string | null;
  details: Record<string, unknown>;
  at: Date;
};

/** One audit row (outcome accept) for an administrative change; call it in the change's transaction. */
export async function writeAdminAudit(tx: Executor, actor: AdminActor, change: AdminChange): Promise<void> {
  await tx.insert(auditLog).values({
    id: newId(change.at.getTime()),
    customerId: change.customerId,
    at: change.at,
    agentId: actor?.kind === 'agent' ? actor.agentId : null,
    actorOwnerId: actor?.kind === 'owner' ? actor.ownerId : null,
    actorOwnerEmail: actor?.kind === 'owner' ? actor.email : null,
    ownerId: change.owner?.id ?? null,
    ownerEmail: change.owner?.email ?? null,
    action: change.action,
    outcome: 'accept',
    meetingClass: change.meetingClass ?? null,
    details: change.details,
  });
}

/**
 * Run an administrative change and write its audit row in one transaction
 * (nested in the caller's, if it passes one): either both commit or neither.
 * `describe` turns the result into the entry, or null when nothing changed
 * (revoking a key already revoked).
 */
export async function audited<T>(db: Executor, actor: AdminActor, change: (tx: Executor) => Promise<T>, describe: (result: T) => AdminChange | null): Promise<T> {
  return db.transaction(async (tx) => {
    const result = await change(tx);
    const entry = describe(result);
    if (entry) await writeAdminAudit(tx, actor, entry);
    return result;
  });
}
