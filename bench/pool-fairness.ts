/**
 * Pool fairness (docs/benchmarks.md, "Pool fairness"; docs/groups.md, "Pools").
 *
 *   npx tsx bench/pool-fairness.ts [--bookings=1000] [--weights=1,1,2,2,4] [--database=postgres://...]
 *
 * Books --bookings meetings of random length (15 to 90 minutes, a seeded generator) through one
 * pool of hosts with --weights, each at its own slot, through the same domain calls as
 * POST /v1/bookings with `pool` (claimThroughPool: the assignment rule, then the claim runner),
 * on an in-memory PGlite (or PostgreSQL with --database). The clock moves 10 minutes per booking,
 * so the trailing 7-day load window slides over the run. Prints each host's share of booked
 * minutes against its weight's share and exits 1 when one is off by more than 5 % of its target.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPglite } from '@/db/drivers/pglite';
import { openPostgres } from '@/db/drivers/postgres';
import type { Db } from '@/db/client';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { bookingClaim } from '@/server/domain/claims';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { createOwner } from '@/server/domain/ownerService';
import { createPool, poolAssignmentsReport } from '@/server/domain/pools/poolService';
import { claimThroughPool } from '@/server/domain/pools/poolScheduling';

const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const BOOKINGS = Number(opt('bookings') ?? 1000);
const WEIGHTS = (opt('weights') ?? '1,1,2,2,4').split(',').map(Number);
const DATABASE = opt('database');
const TOLERANCE = 0.05;
const MIGRATIONS = path.resolve(import.meta.dirname, '..', 'db', 'migrations');
const MINUTE = 60_000;
const DURATIONS = [15, 30, 45, 60, 90];

/** A small seeded generator (mulberry32), so every run books the same lengths. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One run: each host's share of the booked minutes against its weight's, the worst deviation (of the target) and the time taken. */
export async function runPoolFairness(db: Db, bookings: number, weights: readonly number[]) {
  const start = new Date(Date.UTC(2031, 0, 6, 8));
  const boot = await bootstrapCustomer(db, `pool fairness ${Date.now()}`, start);
  const actor = await authenticateApiKey(db, boot.api_key, start);
  await createMeetingClass(db, boot.customer_id, { name: 'demo', priority: 50 });
  const hosts = weights.map((w, i) => ({ email: `host${i + 1}.${boot.customer_id.slice(-6)}@example.com`, weight: w }));
  for (const h of hosts) await createOwner(db, boot.customer_id, { email: h.email, time_zone: 'UTC' }, null, start);
  const pool = await createPool(db, boot.customer_id, null, { name: 'fairness', members: hosts.map((h) => ({ owner_email: h.email, weight: h.weight })) }, start);

  const rnd = random(25);
  const t0 = performance.now();
  let now = start;
  for (let i = 0; i < bookings; i++) {
    now = new Date(start.getTime() + i * 10 * MINUTE);
    const duration = DURATIONS[Math.floor(rnd() * DURATIONS.length)];
    // Each booking at its own slot, 30 days ahead, two hours apart: every host is free for it.
    const slotStart = new Date(start.getTime() + 30 * 24 * 60 * MINUTE + i * 120 * MINUTE);
    const slot = { start: slotStart, end: new Date(slotStart.getTime() + duration * MINUTE) };
    const at = now;
    await claimThroughPool(
      db,
      actor,
      { pool: pool.id, meetingClass: 'demo', slot },
      at,
      (member, details) => bookingClaim(actor, { ownerEmail: member, meetingClass: 'demo', ...slot }, at, null, details),
      null,
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  const report = await poolAssignmentsReport(db, boot.customer_id, null, pool.id, { from: start, to: new Date(now.getTime() + 1) }, now);
  const total = report.members.reduce((s, m) => s + m.booked_minutes, 0);
  const rows = report.members.map((m, i) => {
    const share = m.booked_minutes / total;
    return { host: `host${i + 1}`, weight: m.weight, target: m.target_share, minutes: m.booked_minutes, share, off: Math.abs(share - m.target_share) / m.target_share };
  });
  return { rows, total, seconds, worst: Math.max(...rows.map((r) => r.off)) };
}

async function main() {
  const handle = DATABASE ? await openPostgres(DATABASE, 4, MIGRATIONS) : await openPglite(undefined, MIGRATIONS);
  const r = await runPoolFairness(handle.db, BOOKINGS, WEIGHTS);
  const out = [
    `${BOOKINGS} bookings through a pool of ${WEIGHTS.length} hosts (weights ${WEIGHTS.join(', ')}) on ${handle.driver}: ${r.total} minutes in ${r.seconds.toFixed(1)} s (${((r.seconds * 1000) / BOOKINGS).toFixed(1)} ms per booking)`,
    '| host | weight | target share | booked minutes | share | off by (of target) |',
    '|---|---|---|---|---|---|',
    ...r.rows.map((x) => `| ${x.host} | ${x.weight} | ${(x.target * 100).toFixed(1)} % | ${x.minutes} | ${(x.share * 100).toFixed(2)} % | ${(x.off * 100).toFixed(2)} % |`),
    `worst deviation: ${(r.worst * 100).toFixed(2)} % of the target share (limit ${TOLERANCE * 100} %): ${r.worst <= TOLERANCE ? 'PASS' : 'FAIL'}`,
  ];
  await handle.close();
  // Written before exiting: process.exit would drop what a pipe has not taken yet.
  process.stdout.write(`${out.join('\n')}\n`, () => process.exit(r.worst <= TOLERANCE ? 0 : 1));
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
