import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { selectApprovalForHold, selectOwnerUnderApproval } from '@/db/hot/approvals';
import { agents, approvalPolicies, meetingClasses, owners } from '@/db/schema';
import { normalizeEmail } from '../access';
import { audited, type AdminActor } from '../adminAudit';
import { DomainError, invalidField } from '../errors';
import { isUuid, newId } from '../ids';
import { getMeetingClass } from '../meetingClassService';

/**
 * An owner's approval policy for agent writes (docs/api.md "Approval policies"): rules on one
 * owner, each naming an agent, a meeting class, or both. An agent booking on that owner that a
 * rule matches (the rule's agent is the booking's agent, or the rule names none; likewise the
 * class) waits for the owner's approval on a hold (claims/heldRequest.ts). Set by the owner in
 * the dashboard (their own calendar) or by an admin agent (`manage_customer`) for any owner.
 */

export type ApprovalPolicyView = {
  policy_id: string;
  owner_email: string;
  agent_id: string | null;
  agent_name: string | null;
  meeting_class: string | null;
  created_at: string;
};

export type ApprovalPolicyInput = { ownerEmail: string; agentId?: string | null; meetingClass?: string | null };

function policyNotFound(): DomainError {
  return new DomainError('APPROVAL_POLICY_NOT_FOUND', 'Approval policy rule not found');
}

function listQuery(db: Executor) {
  return db
    .select({ p: approvalPolicies, ownerEmail: owners.email, agentName: agents.name, className: meetingClasses.name })
    .from(approvalPolicies)
    .innerJoin(owners, eq(owners.id, approvalPolicies.ownerId))
    .leftJoin(agents, eq(agents.id, approvalPolicies.agentId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, approvalPolicies.meetingClassId));
}

type ListRow = { p: typeof approvalPolicies.$inferSelect; ownerEmail: string; agentName: string | null; className: string | null };

function view(r: ListRow): ApprovalPolicyView {
  return { policy_id: r.p.id, owner_email: r.ownerEmail, agent_id: r.p.agentId, agent_name: r.agentName, meeting_class: r.className, created_at: r.p.createdAt.toISOString() };
}

/** The customer's rules (one owner's with `ownerEmail`), by owner then creation. */
export async function listApprovalPolicies(db: Executor, customerId: string, filter: { ownerEmail?: string } = {}): Promise<ApprovalPolicyView[]> {
  const where = [eq(approvalPolicies.customerId, customerId)];
  if (filter.ownerEmail) where.push(eq(owners.email, normalizeEmail(filter.ownerEmail)));
  const rows = await listQuery(db)
    .where(and(...where))
    .orderBy(asc(owners.email), asc(approvalPolicies.createdAt), asc(approvalPolicies.id));
  return rows.map(view);
}

/** Add a rule (audited as approval_policy.create by `actor`); the same rule twice is APPROVAL_POLICY_EXISTS. */
export async function addApprovalPolicy(db: Executor, customerId: string, actor: AdminActor, input: ApprovalPolicyInput, now: Date): Promise<ApprovalPolicyView> {
  const agentId = input.agentId ?? null;
  const className = input.meetingClass ?? null;
  if (!agentId && !className) throw invalidField('agent_id', 'name an agent, a meeting class, or both', 'An approval rule names an agent, a meeting class, or both');
  try {
    return await audited(
      db,
      actor,
      async (tx) => {
        const [owner] = await tx
          .select({ id: owners.id, email: owners.email })
          .from(owners)
          .where(and(eq(owners.customerId, customerId), eq(owners.email, normalizeEmail(input.ownerEmail))));
        if (!owner) throw new DomainError('OWNER_NOT_FOUND', `No calendar owner ${normalizeEmail(input.ownerEmail)}`);
        let agent: { id: string; name: string } | undefined;
        if (agentId) {
          [agent] = isUuid(agentId) ? await tx.select({ id: agents.id, name: agents.name }).from(agents).where(and(eq(agents.customerId, customerId), eq(agents.id, agentId.toLowerCase()))) : [];
          if (!agent) throw new DomainError('AGENT_NOT_FOUND', 'Agent not found');
        }
        const meetingClass = className ? await getMeetingClass(tx, customerId, className) : null;
        const same = await tx
          .select({ id: approvalPolicies.id })
          .from(approvalPolicies)
          .where(
            and(
              eq(approvalPolicies.ownerId, owner.id),
              agent ? eq(approvalPolicies.agentId, agent.id) : isNull(approvalPolicies.agentId),
              meetingClass ? eq(approvalPolicies.meetingClassId, meetingClass.id) : isNull(approvalPolicies.meetingClassId),
            ),
          );
        if (same.length) throw exists();
        const id = newId(now.getTime());
        await tx.insert(approvalPolicies).values({ id, customerId, ownerId: owner.id, agentId: agent?.id ?? null, meetingClassId: meetingClass?.id ?? null, createdAt: now });
        return { policy_id: id, owner_email: owner.email, agent_id: agent?.id ?? null, agent_name: agent?.name ?? null, meeting_class: meetingClass?.name ?? null, created_at: now.toISOString(), ownerId: owner.id };
      },
      (r) => ({
        action: 'approval_policy.create',
        customerId,
        owner: { id: r.ownerId, email: r.owner_email },
        meetingClass: r.meeting_class,
        details: { policy_id: r.policy_id, agent_id: r.agent_id, meeting_class: r.meeting_class },
        at: now,
      }),
    ).then(({ ownerId: _ownerId, ...v }) => v);
  } catch (err) {
    // Two adds of the same rule at once: the unique index (migration 0032) refuses the second.
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION)) throw exists();
    throw err;
  }
}

function exists(): DomainError {
  return new DomainError('APPROVAL_POLICY_EXISTS', 'The owner already has this approval rule');
}

/**
 * Remove a rule (audited as approval_policy.delete). `ownerId`: only that owner's rules (the
 * dashboard, where an owner manages their own calendar); anything else is APPROVAL_POLICY_NOT_FOUND.
 * `inScope`: throws when the caller may not act for the rule's owner (an agent's owner scope).
 */
export async function removeApprovalPolicy(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  policyId: string,
  now: Date,
  only: { ownerId?: string; inScope?: (ownerEmail: string) => void } = {},
): Promise<ApprovalPolicyView> {
  const { ownerId } = only;
  if (!isUuid(policyId)) throw policyNotFound();
  return audited(
    db,
    actor,
    async (tx) => {
      const where = [eq(approvalPolicies.customerId, customerId), eq(approvalPolicies.id, policyId.toLowerCase())];
      if (ownerId) where.push(eq(approvalPolicies.ownerId, ownerId));
      const [row] = await listQuery(tx).where(and(...where));
      if (!row) throw policyNotFound();
      only.inScope?.(row.ownerEmail);
      await tx.delete(approvalPolicies).where(eq(approvalPolicies.id, row.p.id));
      return row;
    },
    (r) => ({
      action: 'approval_policy.delete',
      customerId,
      owner: { id: r.p.ownerId, email: r.ownerEmail },
      meetingClass: r.className,
      details: { policy_id: r.p.id, agent_id: r.p.agentId, meeting_class: r.className },
      at: now,
    }),
  ).then(view);
}

/**
 * Whether a rule of this owner covers an agent's booking of this class: one read, by the
 * owner's email and the class's name, so it can go out in the claim's first pipeline.
 */
export async function approvalRequired(db: Executor, q: { customerId: string; ownerEmail: string; agentId: string; meetingClass: string }): Promise<boolean> {
  return (await selectOwnerUnderApproval(db, { ...q, emails: [normalizeEmail(q.ownerEmail)] })) !== undefined;
}

/**
 * A confirm's look-up, sent in its first pipeline beside the hold's lock (claims/holdConfirm.ts): whether
 * a rule of the hold's owner covers this agent and the class the booking takes (the one named, else
 * the hold's), and the request already filed on this hold, if any. One prepared statement (db/hot/approvals.ts).
 */
export function approvalForHold(db: Executor, q: { customerId: string; holdId: string; agentId: string; meetingClass?: string }): Promise<{ required: boolean; proposalId: string | null }> {
  return selectApprovalForHold(db, q);
}

/**
 * A group booking (owner_emails, docs/groups.md) cannot wait for approval: when a rule of one of
 * its owners covers this agent and class, it is refused with APPROVAL_REQUIRED naming that owner.
 */
export async function refuseGroupUnderApproval(db: Executor, q: { customerId: string; ownerEmails: readonly string[]; agentId: string; meetingClass: string }): Promise<void> {
  const email = await selectOwnerUnderApproval(db, { ...q, emails: q.ownerEmails.map(normalizeEmail) });
  if (email) throw new DomainError('APPROVAL_REQUIRED', `${email} requires approval for this booking, and a group booking cannot wait for it: book ${email} alone`);
}
