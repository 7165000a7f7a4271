import { sql } from 'drizzle-orm';
import { check, foreignKey, index, pgTable, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn } from './columns';
import { agents } from './agents';
import { customers } from './customers';
import { meetingClasses } from './meetingClasses';
import { owners } from './owners';

/**
 * An owner's approval policy for agent writes (docs/api.md "Approval policies"): one rule per
 * row, on one owner, naming an agent, a meeting class, or both (both: that agent's bookings of
 * that class). A booking an agent makes on the owner that some rule matches does not book: it
 * becomes a request pending the owner's approval, with a hold on the time. The owner (dashboard)
 * or an admin agent (`manage_customer`) sets the rules. The owner, agent and class belong to the
 * rule's customer (composite foreign keys); deleting any of them deletes its rules. Migration
 * 0032_agent_approval_policy adds the index that keeps one rule per (owner, agent, class),
 * NULLs counted equal (drizzle 0.45 cannot declare NULLS NOT DISTINCT on an index).
 */
export const approvalPolicies = pgTable(
  'approval_policies',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull(),
    agentId: uuid('agent_id'),
    meetingClassId: uuid('meeting_class_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('approval_policies_owner_idx').on(t.ownerId),
    index('approval_policies_agent_idx').on(t.agentId).where(sql`${t.agentId} is not null`),
    index('approval_policies_meeting_class_idx').on(t.meetingClassId).where(sql`${t.meetingClassId} is not null`),
    foreignKey({ name: 'approval_policies_owner_fk', columns: [t.customerId, t.ownerId], foreignColumns: [owners.customerId, owners.id] }).onDelete('cascade'),
    foreignKey({ name: 'approval_policies_agent_fk', columns: [t.customerId, t.agentId], foreignColumns: [agents.customerId, agents.id] }).onDelete('cascade'),
    foreignKey({ name: 'approval_policies_meeting_class_fk', columns: [t.customerId, t.meetingClassId], foreignColumns: [meetingClasses.customerId, meetingClasses.id] }).onDelete('cascade'),
    // A rule names what it applies to: an agent, a class, or both.
    check('approval_policies_subject_check', sql`${t.agentId} is not null or ${t.meetingClassId} is not null`),
  ],
);
