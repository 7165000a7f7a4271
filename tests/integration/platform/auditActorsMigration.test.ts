import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { newId } from '@/server/domain/ids';
import { newCustomer, uniqueEmail } from '../../helpers/app';

/**
 * Migration 0015_audit_actors gives rows written before it an actor (docs/reliability.md,
 * "Audit actors"): its UPDATE statements run here, limited to this test's customer, on rows
 * in the old form (inside a transaction that lifts the new constraints and is rolled back),
 * then the constraints are checked again on what they produced.
 */
const MIGRATION = path.resolve(import.meta.dirname, '../../../db/migrations/0015_audit_actors.sql');
const backfill = fs
  .readFileSync(MIGRATION, 'utf8')
  .split('--> statement-breakpoint')
  .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
  .filter((s) => /^UPDATE\b/i.test(s));

class Rollback extends Error {}

describe('0015_audit_actors backfill', () => {
  it('has the statements this test replays', () => expect(backfill).toHaveLength(3));

  it("names the owner of an approval (the proposal's agent kept in details), agents as agents, and the rest the system", async () => {
    const db = await getDb();
    const c = await newCustomer();
    const ownerId = newId();
    const ownerEmail = uniqueEmail('backfill');
    const ids = { review: newId(), agent: newId(), owner: newId(), none: newId() };
    let rows: Record<string, Record<string, unknown>> = {};
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`alter table audit_log drop constraint audit_log_actor_identity`);
        await tx.execute(sql`alter table audit_log alter column actor_kind drop not null`);
        const old = (id: string, action: string, agentId: string | null, actorOwner: [string, string] | null) =>
          tx.execute(sql`insert into audit_log (id, customer_id, agent_id, owner_id, owner_email, actor_owner_id, actor_owner_email, action, outcome, details)
            values (${id}, ${c.customerId}, ${agentId}, ${ownerId}, ${ownerEmail}, ${actorOwner?.[0] ?? null}, ${actorOwner?.[1] ?? null}, ${action}, 'accept', ${JSON.stringify({ before: true })}::jsonb)`);
        await old(ids.review, 'proposal.review', c.agentId, null);
        await old(ids.agent, 'booking.create', c.agentId, null);
        await old(ids.owner, 'owner.invite', null, [ownerId, ownerEmail]);
        await old(ids.none, 'agent.create', null, null);
        // Only this test's rows: the shared database holds rows of other kinds (requesters) the migration never saw.
        const mine = `"customer_id" = '${c.customerId}'`;
        for (const statement of backfill) await tx.execute(sql.raw(/\bWHERE\b/.test(statement) ? statement.replace(/\bWHERE\b/, `WHERE ${mine} AND`) : `${statement.replace(/;\s*$/, '')} WHERE ${mine}`));
        await tx.execute(sql`alter table audit_log alter column actor_kind set not null`);
        await tx.execute(
          sql.raw(`alter table audit_log add constraint audit_log_actor_identity check ((agent_id is not null) = (actor_kind = 'agent') and (actor_owner_id is not null) = (actor_kind = 'owner') and (actor_requester_email is not null) = (actor_kind = 'requester'))`),
        );
        const read = await tx.execute(sql`select id, actor_kind, agent_id, actor_owner_id, actor_owner_email, details from audit_log where customer_id = ${c.customerId} and details->>'before' = 'true'`);
        rows = Object.fromEntries((read as unknown as { rows?: Record<string, unknown>[] }).rows?.map((r) => [r.id as string, r]) ?? (read as unknown as Record<string, unknown>[]).map((r) => [r.id as string, r]));
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(rows[ids.review]).toMatchObject({ actor_kind: 'owner', agent_id: null, actor_owner_id: ownerId, actor_owner_email: ownerEmail, details: { before: true, proposal_agent_id: c.agentId } });
    expect(rows[ids.agent]).toMatchObject({ actor_kind: 'agent', agent_id: c.agentId, actor_owner_id: null });
    expect(rows[ids.owner]).toMatchObject({ actor_kind: 'owner', agent_id: null, actor_owner_email: ownerEmail });
    expect(rows[ids.none]).toMatchObject({ actor_kind: 'system', agent_id: null, actor_owner_id: null });
  });
});
