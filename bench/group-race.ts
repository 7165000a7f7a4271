/**
 * Group-hold race benchmark (docs/benchmarks.md, "Group holds racing"; docs/groups.md).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> npx tsx bench/group-race.ts [--clients=500] [--rounds=3] [--out=FILE]
 *
 * In one process, through the real route handlers (auth, limits, parsing, idempotency, the
 * claim runner; no socket) on PostgreSQL: each round, --clients clients race for one slot
 *   (a) single: POST /v1/holds (candidate) of ONE owner, and
 *   (b) group:  POST /v1/holds with owner_emails, each client a random 3 to 5 of 10 owners,
 * one after the other in the same run. It reports p50/p99 of the racing requests of each, the
 * ratio of the p99s (target: group <= 2x single), winners, 5xx (target 0), and the checks: a
 * checker reading every group's claims in repeatable read the whole time never sees a partial
 * group, and no owner has two overlapping active claims. The database is migrated first; the
 * rows it seeds stay (a customer of their own).
 */
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { createAgent, mintApiKey } from '@/server/domain/agentService';
import { newId } from '@/server/domain/ids';
import { POST as postHolds } from '@/app/v1/holds/route';
import { POST as postOwners } from '@/app/v1/owners/route';
import { POST as postClasses } from '@/app/v1/meeting-classes/route';
import { PUT as putRules } from '@/app/v1/schedule-rules/route';
import { fmt, log, stats } from './lib/measure';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const CLIENTS = Number(arg('clients') ?? 500);
const ROUNDS = Number(arg('rounds') ?? 3);
const OUT = arg('out');
const PER_KEY = 100;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const randomIp = () => `10.${(Math.random() * 256) | 0}.${(Math.random() * 256) | 0}.${((Math.random() * 254) | 0) + 1}`;

type Answer = { group_id?: string; members?: unknown[] } & Record<string, unknown>;

async function call(handler: Handler, method: string, path: string, key: string, body: unknown): Promise<{ status: number; json: Answer; ms: number }> {
  const req = new Request(`http://bench.test${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': randomIp(), 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(body),
  });
  const t = performance.now();
  const res = await handler(req, { params: Promise.resolve({}) });
  const text = await res.text();
  const ms = performance.now() - t;
  let json: Answer;
  try {
    json = JSON.parse(text) as Answer;
  } catch {
    json = { text };
  }
  return { status: res.status, json, ms };
}

async function main() {
  const db = await getDb(); // migrates
  const boot = await bootstrapCustomer(db, `Bench group race ${newId().slice(-6)}`);
  const admin = boot.api_key;
  const everyDay = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]));
  const expect = (r: { status: number; json: unknown }, status: number) => {
    if (r.status !== status) throw new Error(`set-up: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
  };
  expect(await call(postClasses as Handler, 'POST', '/v1/meeting-classes', admin, { name: 'internal', priority: 30 }), 201);
  const owners: string[] = [];
  for (let i = 0; i < 11; i++) {
    const email = `bench.group.${i}.${newId().slice(-8)}@example.com`;
    expect(await call(postOwners as Handler, 'POST', '/v1/owners', admin, { email, time_zone: 'UTC' }), 201);
    expect(await call(putRules as Handler, 'PUT', '/v1/schedule-rules', admin, { owner_email: email, working_hours: everyDay, hard_blocks: [], max_daily_meeting_hours: null }), 200);
    owners.push(email);
  }
  const single = owners[10];
  const group = owners.slice(0, 10);
  const ownerIds = (await db.execute(sql`select id::text as id from owners where email in ${sql.raw(`(${owners.map((o) => `'${o}'`).join(',')})`)}`)) as unknown as { id: string }[];
  const idList = sql.raw(`(${ownerIds.map((r) => `'${r.id}'`).join(',')})`);
  // API keys: the per-key limit is 120 holds a minute.
  const keys: string[] = [];
  const needed = Math.ceil((CLIENTS * ROUNDS * 2) / PER_KEY) + 1;
  for (let i = 0; i < needed; i++) {
    const agent = await createAgent(db, boot.customer_id, null, { name: `bench ${i}`, owner_scope: 'org:*', permissions: ['create_holds'] });
    keys.push((await mintApiKey(db, boot.customer_id, null, agent.id, null, new Date())).api_key);
  }
  let used = 0;
  const key = () => keys[Math.floor(used++ / PER_KEY)];
  const pick = () => {
    const pool = [...group];
    const n = 3 + Math.floor(Math.random() * 3);
    const out: string[] = [];
    while (out.length < n) out.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
    return out;
  };

  const lat = { single: [] as number[], group: [] as number[] };
  const fiveXx = { single: 0, group: 0 };
  const winners = { single: [] as number[], group: [] as number[] };
  let partial = 0;
  let reads = 0;
  const base = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 30 * 86_400_000;
  for (let round = 0; round < ROUNDS; round++) {
    const slot = { start: new Date(base + round * 3_600_000).toISOString(), end: new Date(base + round * 3_600_000 + 1_800_000).toISOString() };
    // (a) single-owner race
    const a = await Promise.all(Array.from({ length: CLIENTS }, () => call(postHolds as Handler, 'POST', '/v1/holds', key(), { owner_email: single, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot })));
    // (b) group race, with the repeatable-read checker
    let stopped = false;
    const seen: { group_id: string; n: number; statuses: string }[] = [];
    const checker = (async () => {
      while (!stopped) {
        const rows = await db.transaction(
          (tx) => tx.execute(sql`select group_id::text as group_id, count(*)::int as n, string_agg(distinct status, ',') as statuses from claims where owner_id in ${idList} and group_id is not null and part_of_hold_id is null group by group_id`),
          { isolationLevel: 'repeatable read' },
        );
        reads++;
        seen.push(...(rows as unknown as typeof seen));
      }
    })();
    const b = await Promise.all(Array.from({ length: CLIENTS }, () => call(postHolds as Handler, 'POST', '/v1/holds', key(), { owner_emails: pick(), meeting_class: 'internal', hold_scope: 'candidate', candidate: slot })));
    stopped = true;
    await checker;
    const sizes = new Map(b.filter((r) => r.status === 200).map((r) => [r.json.group_id!, r.json.members!.length]));
    for (const s of seen) if ((sizes.has(s.group_id) && s.n !== sizes.get(s.group_id)) || s.statuses.includes(',')) partial++;
    for (const [name, rs] of [['single', a], ['group', b]] as const) {
      lat[name].push(...rs.map((r) => r.ms));
      fiveXx[name] += rs.filter((r) => r.status >= 500).length;
      winners[name].push(rs.filter((r) => r.status === 200).length);
    }
    log(`round ${round}: single p99 ${fmt(stats(a.map((r) => r.ms)).p99)} ms, group p99 ${fmt(stats(b.map((r) => r.ms)).p99)} ms; winners ${winners.single[round]} / ${winners.group[round]}`);
  }
  const overlaps = (await db.execute(sql`select count(*)::int as n from claims a join claims b on b.owner_id = a.owner_id and b.id < a.id
    where a.owner_id in ${idList} and a.status in ('active','confirmed') and b.status in ('active','confirmed') and tstzrange(a.start_at, a.end_at) && tstzrange(b.start_at, b.end_at)`)) as unknown as { n: number }[];
  const s = stats(lat.single);
  const g = stats(lat.group);
  const result = {
    clients: CLIENTS,
    rounds: ROUNDS,
    single: { p50_ms: s.p50, p99_ms: s.p99, five_xx: fiveXx.single, winners_per_round: winners.single },
    group: { p50_ms: g.p50, p99_ms: g.p99, five_xx: fiveXx.group, winners_per_round: winners.group },
    p99_ratio: g.p99 / s.p99,
    checker_reads: reads,
    partial_groups_seen: partial,
    overlapping_claims: overlaps[0]?.n ?? 0,
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `| ${CLIENTS} clients x ${ROUNDS} rounds | single p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms | group p50 ${fmt(g.p50)} ms, p99 ${fmt(g.p99)} ms | ratio ${result.p99_ratio.toFixed(2)} | 5xx ${fiveXx.single}/${fiveXx.group} | partial groups seen ${partial} in ${reads} reads | overlaps ${result.overlapping_claims} |`,
  );
  if (OUT) fs.writeFileSync(OUT, JSON.stringify(result, null, 2));
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
