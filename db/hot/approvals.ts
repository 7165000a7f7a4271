import { approvalPolicies, bookingProposals, claims, meetingClasses, owners } from '../schema';
import type { Executor } from '../client';
import { names } from './columns';
import { queryRows } from './driver';

const p = names(approvalPolicies);
const h = names(claims);
const m = names(meetingClasses);
const b = names(bookingProposals);
const o = names(owners);

/**
 * $1 hold, $2 customer, $3 agent, and $4 the class's name when the confirm names one (else the
 * hold's class counts). One row: whether a rule of the hold's owner covers this agent and class
 * (a rule without an agent or class covers every one), and the request already filed on the hold.
 */
function approvalForHoldStatement(byName: boolean): string {
  const classMatches = byName ? `m.${m.name} = $4` : `r.${p.meetingClassId} = h.${h.meetingClassId}`;
  return `select exists (
      select 1 from approval_policies r
      join claims h on h.${h.ownerId} = r.${p.ownerId}
      ${byName ? `left join meeting_classes m on m.${m.id} = r.${p.meetingClassId}` : ''}
      where h.${h.id} = $1::uuid and h.${h.customerId} = $2::uuid
        and (r.${p.agentId} is null or r.${p.agentId} = $3::uuid)
        and (r.${p.meetingClassId} is null or ${classMatches})
    ) as required,
    (select f.${b.id} from booking_proposals f where f.${b.holdId} = $1::uuid and f.${b.customerId} = $2::uuid limit 1) as proposal_id`;
}
const BY_HOLD_CLASS = approvalForHoldStatement(false);
const BY_CLASS_NAME = approvalForHoldStatement(true);

/**
 * A confirm's approval look-up (docs/api.md "Approval policies"), sent in its first pipeline
 * beside the hold's lock: one prepared statement.
 */
export async function selectApprovalForHold(db: Executor, q: { customerId: string; holdId: string; agentId: string; meetingClass?: string }): Promise<{ required: boolean; proposalId: string | null }> {
  const [row] = q.meetingClass
    ? await queryRows(db, BY_CLASS_NAME, [q.holdId, q.customerId, q.agentId, q.meetingClass])
    : await queryRows(db, BY_HOLD_CLASS, [q.holdId, q.customerId, q.agentId]);
  return { required: row.required === true, proposalId: (row.proposal_id as string | null) ?? null };
}

/**
 * $1 customer, $2 the normalised email (or, `many`, a JSON list of them), $3 agent, $4 the class's
 * name: the email of the first owner among them with a rule covering this agent and class.
 */
function ownerRuleStatement(many: boolean): string {
  return `select o.${o.email} as email from approval_policies r
    join owners o on o.${o.id} = r.${p.ownerId}
    left join meeting_classes m on m.${m.id} = r.${p.meetingClassId}
    where o.${o.customerId} = $1::uuid and ${many ? `o.${o.email} in (select jsonb_array_elements_text($2::jsonb))` : `o.${o.email} = $2`}
      and (r.${p.agentId} is null or r.${p.agentId} = $3::uuid)
      and (r.${p.meetingClassId} is null or m.${m.name} = $4)
    limit 1`;
}
const ONE_OWNER_RULE = ownerRuleStatement(false);
const MANY_OWNERS_RULE = ownerRuleStatement(true);

/** Of these owners (normalised emails), the first whose approval rules cover an agent's booking of a class: its email, or undefined. */
export async function selectOwnerUnderApproval(db: Executor, q: { customerId: string; emails: readonly string[]; agentId: string; meetingClass: string }): Promise<string | undefined> {
  const one = q.emails.length === 1;
  const [row] = await queryRows(db, one ? ONE_OWNER_RULE : MANY_OWNERS_RULE, [q.customerId, one ? q.emails[0] : JSON.stringify(q.emails), q.agentId, q.meetingClass]);
  return row ? (row.email as string) : undefined;
}
