/**
 * Failover under load (docs/benchmarks.md "Failover", docs/operations.md "High availability"):
 * the topology of scripts/ha/ha.sh (etcd, two PostgreSQL 15 under Patroni with synchronous_mode,
 * HAProxy on Patroni's /primary check, PgBouncer in transaction pooling, three app instances on
 * Redis) under bench/failover/load.ts's agents, while rounds of faults happen: kill -9 of the
 * primary node (Patroni and PostgreSQL), the killed node rejoining as a replica (pg_rewind), and
 * a planned switchover. Measures per round the unavailability window (the longest a client went
 * without a success after the fault command: bench/failover/load.ts windowAround), and over the run the answers by status; then on the final primary:
 * the exclusion constraint re-checked on a copy of the active claims plus an independent overlap
 * query (double bookings, must be 0), every acknowledged booking, hold, confirm and cancel present
 * (lost, must be 0), and every committed webhook delivered to the loopback receiver, duplicates
 * and order per endpoint counted.
 *
 *   APP_DIR=<built checkout> npx tsx bench/failover.ts [--rounds kill,rejoin,switchover,...] [--agents 8] [--attempts <file.json>] [--docs]
 *
 * Without APP_DIR the checkout is staged and built (bench/lib/nextServer.ts). Needs patroni,
 * etcd, haproxy, pgbouncer and PostgreSQL 15; says which are missing and exits 2.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openPostgres } from '@/db/drivers/postgres';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { createAgent, mintApiKey } from '@/server/domain/agentService';
import { requestJson } from './lib/httpClient';
import { ROOT, writeBenchSection } from './lib/benchDoc';
import { fmt, log, machineLine } from './lib/measure';
import { prepareApp } from './lib/nextServer';
import { newStats, runLoad, windowAround } from './failover/load';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = (arg('rounds') ?? 'kill,rejoin,switchover,kill,rejoin,switchover,kill,rejoin,switchover').split(',');
const AGENTS = Number(arg('agents') ?? 8);
const DOCS = process.argv.includes('--docs');
/** A file to write every attempt's [sent, answered, status] and the rounds' fault times to (the client's side of a time-line). */
const ATTEMPTS = arg('attempts');
const HA = path.join(ROOT, 'scripts', 'ha', 'ha.sh');
const B = Number(process.env.HA_PORT_BASE || 3620);
const PRIMARY_URL = `postgres://postgres@127.0.0.1:${B + 6}/scheduler`;
const APP_PORTS = (process.env.APP_PORTS || '3610 3611 3612').split(' ');
const RECEIVER_PORT = Number(process.env.RECEIVER_PORT || 3613);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ha(...args: string[]): string {
  return execFileSync(HA, args, { encoding: 'utf8', env: { ...process.env, APP_DIR: process.env.APP_DIR_BUILT } }).trim();
}

/**
 * ha.sh while the load runs: asynchronous, so the agents keep sending and answers are timed when
 * they arrive. (execFileSync blocked the event loop for as long as the command ran: patronictl
 * switchover returns only once the new leader holds the key, polled once a second, so the
 * agents stood still for its Python start-up and the whole switchover, and that counted as outage.)
 */
function haLive(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(HA, args, { encoding: 'utf8', env: { ...process.env, APP_DIR: process.env.APP_DIR_BUILT } }, (err, out) => (err ? reject(err) : resolve(out.trim()))),
  );
}

function missingTools(): string[] {
  const out: string[] = [];
  for (const bin of ['patroni', 'patronictl', 'etcd', 'haproxy', 'pgbouncer']) {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    } catch {
      out.push(bin);
    }
  }
  return out;
}

async function api(base: string, key: string, method: string, p: string, body?: unknown) {
  const res = await requestJson(base, method, p, { authorization: `Bearer ${key}` }, body);
  if (res.status >= 300 && res.status !== 409) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** The idempotent loopback receiver: deliveries by Webhook-Id, in arrival order. */
function receiver() {
  const seen = new Map<string, number>();
  const order: string[] = [];
  const server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume();
    req.on('end', () => {
      const n = seen.get(id) ?? 0;
      seen.set(id, n + 1);
      if (!n) order.push(id);
      res.writeHead(204).end();
    });
  });
  return { seen, order, listen: () => new Promise<void>((r) => server.listen(RECEIVER_PORT, '127.0.0.1', r)), close: () => new Promise((r) => server.close(r)) };
}

async function main() {
  const missing = missingTools();
  if (missing.length) {
    console.error(`bench/failover.ts needs ${missing.join(', ')}: apt-get install -y patroni etcd-server pgbouncer haproxy postgresql-15`);
    process.exit(2);
  }
  const appDir = process.env.APP_DIR ? path.resolve(process.env.APP_DIR) : prepareApp(ROOT, path.join(os.tmpdir(), 'failover-bench-app'), { reuse: true, inPlace: false, noBuild: false }).dir;
  process.env.APP_DIR_BUILT = appDir;
  log('starting the topology (scripts/ha/ha.sh start)');
  log(ha('start'));
  const rx = receiver();
  await rx.listen();
  try {
    await run(rx);
  } finally {
    await rx.close();
    log(ha('stop'));
  }
}

type Round = { kind: string; windowMs: number | null; leaderBefore: string; leaderAfter: string; at: number; end: number };

async function run(rx: ReturnType<typeof receiver>) {
  const bases = APP_PORTS.map((p) => `http://127.0.0.1:${p}`);
  const handle = await openPostgres(PRIMARY_URL, 2, path.join(ROOT, 'db', 'migrations'));
  const boot = await bootstrapCustomer(handle.db, `failover ${Date.now()}`);
  const owners: string[] = [];
  for (let i = 0; i < 6; i++) {
    const email = `fo${i}.${Date.now().toString(36)}@example.com`;
    await api(bases[0], boot.api_key, 'POST', '/v1/owners', { email, time_zone: 'UTC' });
    const day = [{ start: '00:00', end: '23:59' }];
    await api(bases[0], boot.api_key, 'PUT', '/v1/schedule-rules', { owner_email: email, working_hours: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }, hard_blocks: [], max_daily_meeting_hours: null });
    owners.push(email);
  }
  await api(bases[0], boot.api_key, 'POST', '/v1/meeting-classes', { name: 'internal', priority: 30 });
  const keys: string[] = [];
  const endpoints: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const agent = await createAgent(handle.db, boot.customer_id, null, { name: `failover agent ${i}`, owner_scope: 'org:*', permissions: ['read_availability', 'create_holds', 'create_bookings'] });
    const key = (await mintApiKey(handle.db, boot.customer_id, null, agent.id, null, new Date())).api_key;
    keys.push(key);
    // An agent's own bookings go to its own endpoints (docs/webhooks.md): one per agent.
    const hook = await api(bases[0], key, 'POST', '/v1/webhooks', { url: `http://127.0.0.1:${RECEIVER_PORT}/hook`, events: ['booking.created', 'booking.confirmed'] });
    endpoints.push(hook.body.id);
  }
  await handle.close();

  const stats = newStats();
  let stopping = false;
  const load = runLoad({ bases, keys, owners, meetingClass: 'internal', dayOffset: 3, paceMs: 150 }, stats, () => stopping);
  const rounds: Round[] = [];
  let killed: string | null = null;
  const faultTimes: [string, number][] = [];
  await sleep(8000);
  for (const kind of ROUNDS) {
    // synchronous_mode promotes only the synchronous standby: a fault waits until there is one (after a rejoin, once it caught up).
    if (kind !== 'rejoin') for (let i = 0; i < 240 && (await haLive('sync')) === 'none'; i++) await sleep(500);
    const leaderBefore = await haLive('leader');
    const at = Date.now();
    faultTimes.push([kind, at]);
    if (kind === 'kill') {
      killed = leaderBefore;
      log(await haLive('kill-leader'));
    } else if (kind === 'rejoin') {
      if (!killed) throw new Error('rejoin needs a kill round before it');
      log(await haLive('start-node', killed.replace('node', '')));
      for (let i = 0; i < 120 && (await requestJson(`http://127.0.0.1:${B + 3 + Number(killed.replace('node', ''))}`, 'GET', '/replica', {}).catch(() => ({ status: 0 }))).status !== 200; i++) await sleep(500);
      killed = null;
    } else {
      // Returns once the candidate holds the leader key.
      log(await haLive('switchover'));
    }
    // Wait for a primary and for the service to answer again (a success of a request sent now), then let it settle.
    const after = Date.now();
    for (let i = 0; i < 240 && ((await haLive('leader')) === 'none' || !stats.successes.some(([sent]) => sent > after)); i++) await sleep(250);
    await sleep(5000);
    const windowMs = windowAround(stats.successes, at, Date.now());
    rounds.push({ kind, windowMs, leaderBefore, leaderAfter: await haLive('leader'), at, end: Date.now() });
    log(`  round ${rounds.length} ${kind}: ${leaderBefore} -> ${rounds.at(-1)!.leaderAfter}, window ${windowMs === null ? 'n/a' : (windowMs / 1000).toFixed(2) + ' s'}`);
    await sleep(4000);
  }
  stopping = true;
  await load;
  if (ATTEMPTS) fs.writeFileSync(ATTEMPTS, JSON.stringify({ faults: faultTimes, attempts: stats.attempts }));
  const checks = await verify(endpoints, stats, rx);
  report(rounds, stats, checks);
}

async function verify(endpointIds: string[], stats: ReturnType<typeof newStats>, rx: ReturnType<typeof receiver>) {
  const sql = postgres(PRIMARY_URL, { max: 1, onnotice: () => {} });
  try {
    // Every committed delivery delivered (the workers on the new primary finish the outbox).
    let pending = 1;
    for (let i = 0; i < 120 && pending; i++) {
      pending = (await sql`select count(*)::int as n from webhook_deliveries where endpoint_id = any(${endpointIds}::uuid[]) and status <> 'delivered'`)[0].n;
      if (pending) await sleep(1000);
    }
    const [{ standby }] = await sql`select pg_is_in_recovery() as standby`;
    if (standby) throw new Error('verification reached a standby');
    // The exclusion constraint re-checked: the active claims copied and the same constraint added to the copy.
    await sql`create temp table recheck as select owner_id, start_at, end_at from claims where status in ('active', 'confirmed')`;
    let exclusionViolations = 0;
    try {
      await sql`alter table recheck add constraint recheck_no_overlap exclude using gist (owner_id with =, tstzrange(start_at, end_at, '[)') with &&)`;
    } catch {
      exclusionViolations = 1;
    }
    const [{ overlaps }] = await sql`select count(*)::int as overlaps from claims a join claims b on a.owner_id = b.owner_id and a.id < b.id
      and a.status in ('active', 'confirmed') and b.status in ('active', 'confirmed') and tstzrange(a.start_at, a.end_at, '[)') && tstzrange(b.start_at, b.end_at, '[)')`;
    const bookingIds = [...stats.acked.bookings.keys()];
    const rows = bookingIds.length ? await sql`select id::text, status from claims where id = any(${bookingIds}::uuid[])` : [];
    const found = new Map(rows.map((r) => [r.id as string, r.status as string]));
    // Each booking whose status differs from the one the client was last told, with the final answer to its cancel, if one was refused.
    const mismatches = bookingIds
      .filter((id) => found.get(id) !== stats.acked.bookings.get(id))
      .map((id) => ({ id, told: stats.acked.bookings.get(id), found: found.get(id) ?? 'missing', cancel: stats.acked.cancelsRefused.get(id) ?? null }));
    const lostBookings = mismatches.length;
    const holdIds = [...stats.acked.holds];
    const holdRows = holdIds.length ? await sql`select count(*)::int as n from claims where id = any(${holdIds}::uuid[])` : [{ n: 0 }];
    const lostHolds = holdIds.length - holdRows[0].n;
    const deliveries = await sql`select id::text, endpoint_id::text as endpoint, seq from webhook_deliveries where endpoint_id = any(${endpointIds}::uuid[]) and status = 'delivered' order by seq`;
    const undelivered = deliveries.filter((d) => !rx.seen.has(d.id as string)).length;
    const duplicates = [...rx.seen.values()].filter((n) => n > 1).length;
    // In order per endpoint: each endpoint's deliveries arrived (first time) in outbox order.
    let outOfOrder = 0;
    for (const endpoint of endpointIds) {
      const bySeq = deliveries.filter((d) => d.endpoint === endpoint && rx.seen.has(d.id as string)).map((d) => d.id as string);
      const mine = new Set(bySeq);
      const arrival = rx.order.filter((id) => mine.has(id));
      outOfOrder += arrival.filter((id, i) => id !== bySeq[i]).length;
    }
    return { exclusionViolations, overlaps, lostBookings, mismatches, lostHolds, deliveries: deliveries.length, pending, undelivered, duplicates, outOfOrder };
  } finally {
    await sql.end({ timeout: 2 });
  }
}

function report(rounds: Round[], stats: ReturnType<typeof newStats>, c: Awaited<ReturnType<typeof verify>>) {
  const statusLine = [...stats.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
  const fiveXx = [...stats.byStatus.entries()].filter(([s]) => s >= 500);
  const five00 = stats.byStatus.get(500) ?? 0;
  const worst = (kind: string) => Math.max(...rounds.filter((r) => r.kind === kind).map((r) => r.windowMs ?? Infinity));
  const kinds = [...new Set(rounds.map((r) => r.kind))];
  log(`answers by status: ${statusLine}; network errors ${stats.networkErrors}; unanswered ${stats.unanswered.length}; gave up ${stats.gaveUp}`);
  log(`checks: ${JSON.stringify(c)}`);
  const refused = new Map<string, number>();
  for (const answer of stats.acked.cancelsRefused.values()) refused.set(answer, (refused.get(answer) ?? 0) + 1);
  log(`cancels not answered 200: ${[...refused].map(([a, n]) => `${a}: ${n}`).join(', ') || 'none'}`);
  const figures = [
    { figure: 'double bookings (exclusion re-check; overlap query)', target: '0', latest: `${c.exclusionViolations}; ${c.overlaps}`, met: c.exclusionViolations === 0 && c.overlaps === 0 },
    { figure: 'acknowledged work lost (bookings + confirms + cancels; holds)', target: '0', latest: `${c.lostBookings}; ${c.lostHolds} (of ${stats.acked.bookings.size} bookings, ${stats.acked.confirms} confirms, ${stats.acked.cancels} cancels, ${stats.acked.holds.size} holds)`, met: c.lostBookings === 0 && c.lostHolds === 0 },
    { figure: 'answers 500', target: '0', latest: String(five00), met: five00 === 0 },
    { figure: 'requests left unanswered for 30 s (then retried with the same key)', target: '0', latest: String(stats.unanswered.length), met: stats.unanswered.length === 0 },
    { figure: 'webhook deliveries: undelivered; out of order per endpoint', target: '0; 0', latest: `${c.undelivered + c.pending}; ${c.outOfOrder} (of ${c.deliveries} committed)`, met: c.deliveries > 0 && c.undelivered + c.pending === 0 && c.outOfOrder === 0 },
    { figure: 'deliveries the receiver saw twice (same Webhook-Id; deduplicated there)', latest: String(c.duplicates) },
    ...(kinds.includes('kill') ? [{ figure: 'unavailability window, kill -9 of the primary (p100)', target: '<= 15 s', latest: `${fmt(worst('kill') / 1000)} s`, met: worst('kill') <= 15_000 }] : []),
    ...(kinds.includes('switchover') ? [{ figure: 'unavailability window, planned switchover (p100)', target: '<= 3 s', latest: `${fmt(worst('switchover') / 1000)} s`, met: worst('switchover') <= 3_000 }] : []),
    ...(kinds.includes('rejoin') ? [{ figure: 'unavailability window, old primary rejoining (p100)', latest: `${fmt(worst('rejoin') / 1000)} s` }] : []),
    { figure: 'answers by status (every attempt, retries included)', latest: statusLine + (fiveXx.length ? '' : '') },
  ];
  // A request left unanswered holds its agent for 30 s: a round it overlaps has fewer agents sending, and its window says so.
  const hung = (r: Round) => stats.unanswered.filter(([sent, gaveUp]) => sent < r.end && gaveUp > r.at).length;
  const roundsLine = rounds.map((r, i) => `${i + 1}. ${r.kind} ${r.leaderBefore}->${r.leaderAfter} ${r.windowMs === null ? 'n/a' : (r.windowMs / 1000).toFixed(2) + ' s'}${hung(r) ? ` (${hung(r)} unanswered requests in the round)` : ''}`).join('; ');
  log(`rounds: ${roundsLine}`);
  if (!DOCS) return;
  writeBenchSection('failover', {
    measures: `${AGENTS} agents book, hold and confirm, and cancel what they booked, through three app instances on PgBouncer (transaction pooling, DATABASE_PREPARE=0) in front of HAProxy and two PostgreSQL 15 under Patroni (synchronous_mode), retrying with the same Idempotency-Key on 503, while rounds of faults happen: kill -9 of the primary's Patroni and PostgreSQL, the old primary rejoining as a replica, a planned switchover. The window of a round is the longest a client went without a success after the fault command: for each success, from the last success answered before its request was sent to its answer (bench/failover/load.ts windowAround); the fault commands run without stopping the agents. The checks run on the final primary.`,
    command: 'APP_DIR=<built checkout> npx tsx bench/failover.ts --docs',
    run: `npx tsx bench/failover.ts ${process.argv.slice(2).join(' ')}`,
    host: machineLine(),
    figures,
    notes: [
      `Rounds: ${roundsLine}.`,
      ...(stats.unanswered.length ? ['A request left unanswered holds its agent for 30 s (then it is retried with the same key): a round it overlaps has fewer agents sending, and a longer window (the open defect of docs/benchmarks/history/2026-11-29-switchover-window.md, "Not fixed").'] : []),
      'Network errors and 503s are retried by the client with the same key; 409 and 422 answers are races lost to another agent (the slot was taken), not failures.'],
  });
}

main().then(() => process.exit(0), (e) => { console.error(e); try { execFileSync(HA, ['stop'], { stdio: 'inherit' }); } catch { /* already stopped */ } process.exit(1); });
