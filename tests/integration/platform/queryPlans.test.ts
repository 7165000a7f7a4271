import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { AROUND, AROUND_BY_EMAIL, AROUND_BY_HOLD, EXPIRE_BY_EMAIL, EXPIRE_BY_HOLD, EXPIRE_BY_ID, MADE_WITH_KEY } from '@/db/hot/claims';
import { agents, meetingClasses } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

/**
 * The claim transaction's statements on the claims table touch only rows near the request,
 * never an owner's history (docs/operations.md, "Query plans"): for an owner with thousands
 * of past claims, after ANALYZE, every hot statement's plan, custom (parameters known) and
 * generic (what a prepared statement may switch to after five runs), reaches the claims
 * table only through the index meant for it. A Seq Scan on claims, or the owner's
 * (owner_id, start_at) index walked with only owner_id bounded, fails.
 */
const HISTORY = 6000;
const DAY = 86_400_000;
let admin: TestCustomer;
let owner: { id: string; email: string };
let agentId: string;
let holdId: string;
const future = new Date(Date.now() + 30 * DAY);
future.setUTCHours(0, 0, 0, 0);

beforeAll(async () => {
  const db = await getDb();
  admin = await newCustomer();
  const o = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
  owner = { id: o.id, email: o.email };
  const other = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
  const classId = newId();
  await db.insert(meetingClasses).values({ id: classId, customerId: admin.customerId, name: `plans-${classId.slice(-6)}`, priority: 40 });
  agentId = newId();
  await db.insert(agents).values({ id: agentId, customerId: admin.customerId, name: 'plans', permissions: ['create_bookings'], ownerScope: 'org:*' });
  const now = new Date().toISOString();
  // History: one claim an hour going back, in a mix of finished states, for both owners.
  for (const ownerId of [owner.id, other.id]) {
    await db.execute(sql`
      insert into claims (id, customer_id, owner_id, agent_id, meeting_class_id, kind, status, start_at, end_at, hold_scope, expires_at, idempotency_key, created_at, updated_at)
      select gen_random_uuid(), ${admin.customerId}, ${ownerId}, ${agentId}, ${classId},
        case when i % 3 = 0 then 'hold' else 'booking' end,
        case when i % 3 = 0 then 'expired' when i % 3 = 1 then 'confirmed' else 'cancelled' end,
        ${now}::timestamptz - i * interval '1 hour', ${now}::timestamptz - i * interval '1 hour' + interval '30 minutes',
        case when i % 3 = 0 then 'candidate' end,
        case when i % 3 = 0 then ${now}::timestamptz - i * interval '1 hour' - interval '10 minutes' end,
        'k' || i, ${now}::timestamptz - i * interval '1 hour' - interval '1 day', ${now}::timestamptz - i * interval '1 hour'
      from generate_series(1, ${HISTORY}) as i`);
  }
  // The present: a few active holds and bookings ahead.
  await db.execute(sql`
    insert into claims (id, customer_id, owner_id, agent_id, meeting_class_id, kind, status, start_at, end_at, hold_scope, expires_at, created_at, updated_at)
    select gen_random_uuid(), ${admin.customerId}, ${owner.id}, ${agentId}, ${classId},
      case when i % 2 = 0 then 'hold' else 'booking' end, case when i % 2 = 0 then 'active' else 'confirmed' end,
      ${future.toISOString()}::timestamptz + i * interval '1 hour', ${future.toISOString()}::timestamptz + i * interval '1 hour' + interval '30 minutes',
      case when i % 2 = 0 then 'candidate' end, case when i % 2 = 0 then ${now}::timestamptz + i * interval '1 minute' end, now(), now()
    from generate_series(1, 8) as i`);
  const held = await db.execute(sql`select id from claims where owner_id = ${owner.id} and kind = 'hold' and status = 'active' limit 1`);
  holdId = String(((Array.isArray(held) ? held : (held as { rows: unknown[] }).rows) as { id: string }[])[0].id);
  await db.execute(sql`analyze claims`);
});

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };

function claimsAccess(node: PlanNode, out: string[] = []): string[] {
  if (node['Index Name']?.startsWith('claims_')) out.push(node['Index Name']);
  else if (node['Relation Name'] === 'claims' && !node['Index Name'] && node['Node Type'] !== 'ModifyTable' && node['Node Type'] !== 'Bitmap Heap Scan')
    out.push(node['Node Type']);
  for (const child of node.Plans ?? []) claimsAccess(child, out);
  return out;
}

const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;

/** How the claims table is reached by `text` with `params`, under a custom or a generic plan. */
async function access(text: string, params: string[], mode: 'force_custom_plan' | 'force_generic_plan'): Promise<string[]> {
  const db = await getDb();
  const name = `plan_${newId().replace(/-/g, '')}`;
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local plan_cache_mode = ${mode}`));
    await tx.execute(sql.raw(`prepare ${name} as ${text}`));
    const result = await tx.execute(sql.raw(`explain (format json) execute ${name}(${params.map(literal).join(', ')})`));
    await tx.execute(sql.raw(`deallocate ${name}`));
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
    const raw = Object.values(rows[0])[0];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    return claimsAccess(plan[0].Plan);
  });
}

const iso = (ms: number) => new Date(ms).toISOString();
const MODES = ['force_custom_plan', 'force_generic_plan'] as const;

describe(`hot statements on an owner with ${HISTORY} past claims`, () => {
  const slot = () => [iso(future.getTime() + 9 * 3600000), iso(future.getTime() + 9.5 * 3600000)];
  const day = () => [iso(future.getTime()), iso(future.getTime() + DAY)];
  const pastDay = () => [iso(future.getTime() - 40 * DAY), iso(future.getTime() - 39 * DAY)];

  for (const mode of MODES) {
    it(`claims around a slot, a day ahead and a day in the history use the exclusion constraint's index (${mode})`, async () => {
      for (const [from, to] of [slot(), day(), pastDay()]) {
        expect(await access(AROUND, [owner.id, from, to], mode)).toEqual(['claims_no_overlap']);
        expect(await access(AROUND_BY_EMAIL, [admin.customerId, from, to, owner.email], mode)).toEqual(['claims_no_overlap']);
        // A confirm's: the owner found through the hold's primary key, and the hold's stamp read through it once more (holdDecisionCurrent).
        expect((await access(AROUND_BY_HOLD, [holdId, from, to, admin.customerId], mode)).sort()).toEqual(['claims_no_overlap', 'claims_pkey', 'claims_pkey']);
      }
    });

    it(`the owner's due holds are found among its active holds only (${mode})`, async () => {
      const now = new Date().toISOString();
      expect(await access(EXPIRE_BY_ID, [now, owner.id], mode)).toEqual(['claims_owner_active_hold_expiry_idx']);
      expect(await access(EXPIRE_BY_EMAIL, [now, admin.customerId, owner.email], mode)).toEqual(['claims_owner_active_hold_expiry_idx']);
      expect((await access(EXPIRE_BY_HOLD, [now, holdId, admin.customerId], mode)).sort()).toEqual(['claims_owner_active_hold_expiry_idx', 'claims_pkey']);
    });

    it(`a claim made with an Idempotency-Key is found by agent and key (${mode})`, async () => {
      const since = iso(Date.now() - DAY);
      expect(await access(MADE_WITH_KEY, [agentId, 'k42', 'booking', since], mode)).toEqual(['claims_agent_idem_idx']);
    });
  }
});
