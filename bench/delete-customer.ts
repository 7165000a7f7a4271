/**
 * Deleting a customer with many claims (docs/benchmarks.md, "Deleting a customer").
 *
 *   npx tsx bench/delete-customer.ts [--claims=50000] [--owners=20] [--without-indexes]
 *
 * Seeds one customer (bootstrapCustomer, a meeting class, --owners owners with their primary
 * calendars) with --claims claims that point at each other the way real ones do, in groups of
 * three: a hold promoted into a booking (`promoted_booking_id`), that booking (`hold_id` names
 * the hold), and a booking it preempted (`preempted_by_claim_id`). Then VACUUM ANALYZE and a
 * CHECKPOINT (autovacuum is off on these machines), then the deletion the product does, in one
 * transaction: the customer's claims first (claims.meeting_class_id is ON DELETE RESTRICT), then
 * the customer (owners, calendars, agents, ... cascade). Prints the time of each statement and
 * the time PostgreSQL spent in each foreign-key trigger (EXPLAIN ANALYZE of the claims delete).
 *
 * --without-indexes measures the "before": the same transaction first drops the partial indexes
 * of migration 0014 (claims_hold_id_idx, claims_promoted_booking_idx, claims_preempted_by_idx)
 * and is rolled back at the end (DDL is transactional), so the schema is left as it was; the rows
 * are then deleted for real, with the indexes. It is quadratic: use a small --claims.
 *
 * Target: 50,000 claims deleted in under 10 s on this host.
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench, created when
 * missing). Run it under the shared lock: `flock /tmp/heavy.lock npx tsx bench/delete-customer.ts`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { openPostgres } from '@/db/drivers/postgres';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { ensureDatabase, fmt, loadAvg, log, machineLine } from './lib/measure';

const argv = process.argv.slice(2);
const opt = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const CLAIMS = Number(opt('claims') ?? 50_000);
const OWNERS = Number(opt('owners') ?? 20);
const WITHOUT_INDEXES = argv.includes('--without-indexes');
const URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const MIGRATIONS = path.resolve(__dirname, '..', 'db', 'migrations');
const TARGET_S = 10;
const SELF_REFERENCE_INDEXES = ['claims_hold_id_idx', 'claims_promoted_booking_idx', 'claims_preempted_by_idx'];

async function seed(sql: postgres.Sql, customerId: string, classId: string, agentId: string): Promise<void> {
  // Owners and their primary calendars, as createOwner makes them.
  await sql`
    insert into owners (id, customer_id, email, name, time_zone, working_hours, hard_blocks)
    select gen_random_uuid(), ${customerId}, 'bench-delete-' || i || '@example.com', 'Owner ' || i, 'UTC', null, '[]'::jsonb
    from generate_series(0, ${OWNERS - 1}) as i`;
  await sql`
    insert into calendars (id, customer_id, owner_id, type, is_primary, status, display_name)
    select gen_random_uuid(), customer_id, id, 'internal', true, 'active', 'Internal' from owners where customer_id = ${customerId}`;
  // Claim i has the id md5(customer, i); groups of three (i = 3g, 3g+1, 3g+2) link up as described above.
  // Claim i sits in its own half hour of its owner (owner i % OWNERS), so active ones never overlap.
  const batch = 9_999; // a multiple of three: a group never straddles two statements
  for (let from = 0; from < CLAIMS; from += batch) {
    const to = Math.min(CLAIMS, from + batch) - 1;
    await sql`
      with o as (select id, row_number() over (order by email) - 1 as n from owners where customer_id = ${customerId}),
      c as (
        select i, i % 3 as role, md5(${customerId} || ':' || i)::uuid as id, (select id from o where n = i % ${OWNERS}) as owner_id,
          '2027-01-04T00:00:00Z'::timestamptz + (i / ${OWNERS}) * interval '30 minutes' as start_at
        from generate_series(${from}::int, ${to}::int) as i
      )
      insert into claims (id, customer_id, owner_id, agent_id, meeting_class_id, kind, status, start_at, end_at,
                          hold_scope, expires_at, promoted_booking_id, hold_id, preempted_by_claim_id, created_at, updated_at)
      select id, ${customerId}, owner_id, ${agentId}, ${classId},
        case when role = 0 then 'hold' else 'booking' end,
        case role when 0 then 'promoted' when 1 then 'confirmed' else 'preempted' end,
        start_at, start_at + interval '30 minutes',
        case when role = 0 then 'candidate' end,
        case when role = 0 then start_at - interval '1 day' end,
        case when role = 0 and i + 1 < ${CLAIMS} then md5(${customerId} || ':' || (i + 1))::uuid end,
        case when role = 1 then md5(${customerId} || ':' || (i - 1))::uuid end,
        case when role = 2 then md5(${customerId} || ':' || (i - 1))::uuid end,
        now(), now()
      from c
      where not (role = 0 and i + 1 >= ${CLAIMS})`; // a trailing hold without its booking would break claims_promoted_booking
  }
}

type Explained = { Plan: { 'Actual Total Time': number }; Triggers?: { 'Trigger Name': string; 'Constraint Name'?: string; Time: number; Calls: number }[]; 'Execution Time': number };

async function main(): Promise<void> {
  await ensureDatabase(URL);
  const handle = await openPostgres(URL, 2, MIGRATIONS);
  const sql = postgres(URL, { max: 1, onnotice: () => {} });
  try {
    const boot = await bootstrapCustomer(handle.db, `bench delete customer ${new Date().toISOString()}`);
    const mc = await createMeetingClass(handle.db, boot.customer_id, { name: 'Bench', priority: 50 });
    const customerId = boot.customer_id;
    log(`seeding ${CLAIMS} claims for customer ${customerId} (${OWNERS} owners)`);
    const t0 = performance.now();
    await seed(sql, customerId, mc.id, boot.agent_id);
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from claims where customer_id = ${customerId}`;
    const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total from claims`;
    log(`  seeded ${n} claims in ${fmt((performance.now() - t0) / 1000)} s (${total} claims in the table)`);
    await sql.unsafe('vacuum analyze claims, owners, calendars, customers, agents, meeting_classes, booking_proposals');
    await sql.unsafe('checkpoint').catch(() => {});

    let claimsMs = 0;
    let customerMs = 0;
    let triggers: NonNullable<Explained['Triggers']> = [];
    const started = performance.now();
    await sql
      .begin(async (tx) => {
        if (WITHOUT_INDEXES) for (const ix of SELF_REFERENCE_INDEXES) await tx.unsafe(`drop index if exists ${ix}`);
        // The self-references are DEFERRABLE INITIALLY DEFERRED: check them inside the statement,
        // so their cost is in the figure (and in the rolled-back "before" run at all).
        await tx.unsafe('set constraints all immediate');
        const a = performance.now();
        const [row] = await tx.unsafe(`explain (analyze, format json) delete from claims where customer_id = '${customerId}'`);
        claimsMs = performance.now() - a;
        triggers = ((row['QUERY PLAN'] as Explained[])[0].Triggers ?? []).filter((t) => t.Time > 0.5);
        const b = performance.now();
        await tx`delete from customers where id = ${customerId}`;
        customerMs = performance.now() - b;
        if (WITHOUT_INDEXES) throw new RollBack();
      })
      .catch((err) => {
        if (!(err instanceof RollBack)) throw err;
      });
    const totalS = (performance.now() - started) / 1000;
    if (WITHOUT_INDEXES) {
      // Rolled back (indexes and rows are back): delete for real, with the indexes.
      await sql.begin(async (tx) => {
        await tx`delete from claims where customer_id = ${customerId}`;
        await tx`delete from customers where id = ${customerId}`;
      });
    }
    const [{ left }] = await sql<{ left: number }[]>`select count(*)::int as left from claims where customer_id = ${customerId}`;
    if (left !== 0 && !WITHOUT_INDEXES) throw new Error(`${left} claims left after the delete`);

    log('');
    log(`machine: ${machineLine()}, load average ${loadAvg()}`);
    log(`run: npx tsx bench/delete-customer.ts --claims=${CLAIMS} --owners=${OWNERS}${WITHOUT_INDEXES ? ' --without-indexes' : ''}`);
    log(`indexes on hold_id, promoted_booking_id, preempted_by_claim_id: ${WITHOUT_INDEXES ? 'dropped (before)' : 'present (migration 0014)'}`);
    log(`delete ${n} claims: ${fmt(claimsMs / 1000)} s (EXPLAIN ANALYZE)`);
    for (const t of triggers) log(`  trigger ${t['Constraint Name'] ?? t['Trigger Name']}: ${fmt(t.Time / 1000)} s over ${t.Calls} calls`);
    log(`delete the customer (cascades): ${fmt(customerMs / 1000)} s`);
    log(`total: ${fmt(totalS)} s for ${n} claims; target < ${TARGET_S} s for 50,000: ${n >= 50_000 ? (totalS < TARGET_S ? 'met' : 'NOT met') : 'n/a (smaller run)'}`);
  } finally {
    await sql.end({ timeout: 5 });
    await handle.close();
  }
}

class RollBack extends Error {}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
