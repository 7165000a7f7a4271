import type { Executor } from '@/db/client';
import { auditLog, type AuditAction } from '@/db/schema';
import type { AgentActor } from './access';
import { actorColumns, type AuditActor } from './audit';
import { newId } from './ids';

/** A signed-in owner acting through the dashboard (its transport checked the owner's role). */
export type OwnerActor = { kind: 'owner'; ownerId: string; customerId: string; email: string };

/**
 * Who makes an administrative change: an agent (API key), an owner through
 * the dashboard (the tRPC ownerProcedure supplies it), or null for a trusted
 * caller with no identity of its own (customer bootstrap, operator scripts),
 * recorded as the system. Only agents are checked against a
 * scope and permissions in the domain; an owner's rights are checked by the
 * dashboard transport.
 */
export type AdminActor = AgentActor | OwnerActor | null;

/** An administrative action: one of the audit log's actions (AUDIT_ACTIONS in db/schema/audit.ts). */
export type AdminAction = AuditAction;

/** What an administrative change did. Never a secret: `details` is readable by every `read_audit` agent. */
export type AdminChange = {
  action: AuditAction;
  customerId: string;
  /** The calendar owner the change is about (a user-scoped agent sees only its owner's entries). */
  owner?: { id: string; email: string } | null;
  meetingClass?: string | null;
  details: Record<string, unknown>;
  at: Date;
};

/** The audit actor of an administrative change (null: the system). */
function auditActorOf(actor: AdminActor): AuditActor {
  if (actor?.kind === 'agent') return { kind: 'agent', agentId: actor.agentId };
  if (actor?.kind === 'owner') return { kind: 'owner', ownerId: actor.ownerId, email: actor.email };
  return { kind: 'system' };
}

/** One audit row (outcome accept) for an administrative change; call it in the change's transaction. */
async function writeAdminAudit(tx: Executor, actor: AdminActor, change: AdminChange): Promise<void> {
  await tx.insert(auditLog).values({
    id: newId(change.at.getTime()),
    customerId: change.customerId,
    at: change.at,
    ...actorColumns(auditActorOf(actor)),
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
