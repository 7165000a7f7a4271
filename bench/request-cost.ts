/**
 * Cost of one request, per route (docs/benchmarks.md, "Cost of one request"): the production
 * build on PostgreSQL over the Unix socket, --clients clients (default 8) each on its own owner,
 * --count requests per client and route; server CPU, PostgreSQL CPU, bench-client CPU and the
 * server's read/write system calls per request.
 *
 *   npx tsx bench/request-cost.ts --app-dir=DIR [--count=N] [--clients=N] [--rounds=N] [--server-prof=DIR]
 *
 * Routes, in order, each round: GET /v1/notifications (the fixed path: API key, rate limit,
 * notification drain), POST /v1/bookings, the same bookings again (each answered 409 under the
 * owner's lock), POST /v1/holds (candidate) and the confirm of each hold. A build comes from
 * bench/contention.ts (its staged app) or any `next build`.
 * --race=N: instead, three rounds of N clients booking one slot of one owner at once (wall, p50,
 *   p99, server CPU and write calls per request). --race-path=hold: the same race with candidate holds
 *   (POST /v1/holds), --race-path=both: a booking race then a hold race each round.
 * --fetch: the client uses fetch instead of node:http (bench/lib/httpClient.ts), to see its cost.
 * --phases-out=FILE: each phase's start and end (process.hrtime, microseconds) as JSON, to cut a
 *   --server-prof profile by phase (its samples carry the same monotonic clock).
 * After each phase, the service's decision counters that moved in it (GET /metrics): decisions by
 *   action, outcome and reason, confirms whose hold decision stood or was arbitrated again, ...
 * Before each phase: VACUUM ANALYZE of the claim tables, outside the phase's figures.
 * RC_STRACE=PHASE: strace the server's reads and writes during that phase into /tmp/strace-PHASE.txt.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openPostgres } from '@/db/drivers/postgres';
import { cleanup, mintKeys, seedCustomer, seedOwners } from './booking/seed';
import { CLASS, MIGRATIONS, opt, ownerEmail } from './booking/options';
import { fmt, log, postgresCpuByPid, processCpuMs, selfCpuMs, vacuumTables } from './lib/measure';
import { requestJson } from './lib/httpClient';
import { startServer, stopServer } from './lib/nextServer';

const FETCH = process.argv.includes('--fetch');
const RACE = Number(opt('race') ?? 0);
const RACE_PATHS = opt('race-path') === 'both' ? ['booking', 'hold'] : [opt('race-path') === 'hold' ? 'hold' : 'booking'];
const TCP_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const COUNT = Number(opt('count') ?? 150);
const CLIENTS = Number(opt('clients') ?? 8);
const SLOT_MS = 30 * 60_000;
const DAY_MS = 86_400_000;
const BASE = (() => {
  const d = new Date(Date.now() + 40 * DAY_MS);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
})();

function io(pid: number) {
  const t = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
  const get = (k: string) => Number(new RegExp(`${k}: (\\d+)`).exec(t)![1]);
  return { r: get('syscr'), w: get('syscw') };
}
/** The service's decision counters (GET /metrics), summed by their labels: what each phase decided, and how. */
const METRICS_TOKEN = 'request-cost';
const COUNTED = /^scheduler_(decisions|arbitrations|confirms|preemptions|idempotency_conflicts|idempotent_replays)_total\{([^}]*)\} (\d+)/;
async function decisionCounts(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = COUNTED.exec(line);
    if (m) counts.set(`${m[1]}{${m[2].replace(/"/g, '')}}`, Number(m[3]));
  }
  return counts;
}
const pgCpu = () => [...postgresCpuByPid().values()].reduce((a, b) => a + b, 0);

async function main() {
  const u = new URL(TCP_URL);
  const handle = await openPostgres(TCP_URL, 4, MIGRATIONS);
  const seeded = await seedCustomer(handle.db, 'request-cost');
  const tag = `rc${Date.now()}`;
  await seedOwners(handle.db, seeded, tag, CLIENTS);
  const keys = await mintKeys(handle.db, seeded, Math.ceil(((RACE ? RACE * 3 * RACE_PATHS.length : CLIENTS * COUNT * 5) * Number(opt('rounds') ?? 2)) / 100) + 4);
  let used = 0;
  const key = () => keys[Math.floor(used++ / 100)];
  await vacuumTables(TCP_URL);
  const prof = opt('server-prof');
  const server = await startServer(
    opt('app-dir')!,
    { DATABASE_URL: `postgres:///${u.pathname.slice(1)}`, PGHOST: '/var/run/postgresql', PGUSER: 'postgres', REDIS_URL: 'redis://127.0.0.1:6379', TRUST_PROXY: '1', LOG_LEVEL: 'silent', METRICS_TOKEN },
    prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
  );
  const pid = server.child.pid!;
  const post = async (k: string, p: string, body: unknown, method = 'POST') => {
    const headers = { authorization: `Bearer ${k}`, 'x-forwarded-for': `10.0.${used % 250}.${(used >> 8) % 250}`, ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}) };
    if (FETCH) {
      const res = await fetch(server.baseUrl + p, { method, headers: { ...headers, 'content-type': 'application/json' }, body: method === 'POST' ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    }
    return requestJson(server.baseUrl, method, p, headers, method === 'POST' ? body : undefined);
  };
  let day = 0;
  const phases: { name: string; from: number; to: number }[] = [];
  const phase = async (name: string, fn: (c: number, i: number) => Promise<number>) => {
    // Statistics as autovacuum would keep them (it is off on these hosts): the table grows
    // tenfold during a run, and plans cached on statistics of the nearly empty table scan the
    // customer's claims (docs/benchmarks/history/2026-11-27-floyd-engine-slower-host.md).
    await vacuumTables(TCP_URL);
    await new Promise((r) => setTimeout(r, 300)); // its backend gone, so the PostgreSQL CPU sums below leave it out
    const mark0 = process.hrtime.bigint() / 1000n;
    const traced = process.env.RC_STRACE && name === process.env.RC_STRACE ? (await import('node:child_process')).spawn('strace', ['-f', '-e', 'trace=write,writev,sendto,sendmsg,read,recvfrom', '-o', `/tmp/strace-${name.replace(/\W+/g, '_')}.txt`, '-p', String(pid)], { stdio: 'ignore' }) : null;
    if (traced) await new Promise((r) => setTimeout(r, 1500));
    const d0 = await decisionCounts(server.baseUrl);
    const s0 = processCpuMs(pid)!, p0 = pgCpu(), c0 = selfCpuMs(), io0 = io(pid), t0 = performance.now();
    const statuses = new Map<number, number>();
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; i < COUNT; i++) {
        const st = await fn(c, i);
        statuses.set(st, (statuses.get(st) ?? 0) + 1);
      }
    }));
    const n = CLIENTS * COUNT;
    const s1 = processCpuMs(pid)!, p1 = pgCpu(), c1 = selfCpuMs(), io1 = io(pid), t1 = performance.now();
    if (traced) { traced.kill('SIGINT'); await new Promise((r) => traced.once('exit', r)); }
    phases.push({ name, from: Number(mark0), to: Number(process.hrtime.bigint() / 1000n) });
    log(`${name.padEnd(22)} ${fmt(n / ((t1 - t0) / 1000))}/s server ${fmt((s1 - s0) / n)} ms  pg ${fmt((p1 - p0) / n)} ms  client ${fmt((c1 - c0) / n)} ms  syscr ${fmt((io1.r - io0.r) / n)} syscw ${fmt((io1.w - io0.w) / n)}  ${[...statuses].map(([s, k]) => `${k}x${s}`).join(' ')}`);
    const d1 = await decisionCounts(server.baseUrl);
    const decided = [...d1].filter(([k, v]) => v !== (d0.get(k) ?? 0)).map(([k, v]) => `${k} ${v - (d0.get(k) ?? 0)}`);
    if (decided.length) log(`${''.padEnd(22)} ${decided.join(', ')}`);
  };
  const slot = (d: number, i: number) => {
    const s = BASE + (d + Math.floor(i / 40)) * DAY_MS + (i % 40) * SLOT_MS;
    return { start: new Date(s).toISOString(), end: new Date(s + SLOT_MS).toISOString() };
  };
  try {
    for (let round = 0; round < Number(opt('rounds') ?? 2); round++) {
      if (RACE) {
        for (const racePath of RACE_PATHS) {
          const dRace = day; day += 1;
          let slotI = 0;
          for (let k = 0; k < 3; k++) {
            const sl = slot(dRace, slotI++);
            const t0 = performance.now();
            const n0 = processCpuMs(pid)!, p0 = pgCpu(), io0 = io(pid);
            const mark0 = process.hrtime.bigint() / 1000n;
            const send = () =>
              racePath === 'hold'
                ? post(key(), '/v1/holds', { owner_email: ownerEmail(tag, 0), meeting_class: CLASS, hold_scope: 'candidate', candidate: sl })
                : post(key(), '/v1/bookings', { owner_email: ownerEmail(tag, 0), meeting_class: CLASS, ...sl });
            const res = await Promise.all(Array.from({ length: RACE }, async () => { const a = performance.now(); const r = await send(); return { st: r.status, ms: performance.now() - a }; }));
            phases.push({ name: `race ${racePath}`, from: Number(mark0), to: Number(process.hrtime.bigint() / 1000n) });
            const ms = res.map((x) => x.ms).sort((a, b) => a - b);
            const won = res.filter((x) => x.st === 201 || x.st === 200).length;
            log(`race ${racePath.padEnd(7)} ${RACE}: wall ${fmt(performance.now() - t0)} ms p50 ${fmt(ms[Math.floor(ms.length / 2)])} p99 ${fmt(ms[Math.floor(ms.length * 0.99)])} server ${fmt((processCpuMs(pid)! - n0) / RACE)} ms/req pg ${fmt((pgCpu() - p0) / RACE)} ms/req syscw ${fmt((io(pid).w - io0.w) / RACE)}/req, ${won} won, ${res.filter((x) => x.st === 409).length} x 409`);
          }
        }
        continue;
      }
      await phase('GET notifications', async () => (await post(key(), '/v1/notifications', null, 'GET')).status);
      const dDirect = day; day += Math.ceil(COUNT / 40) + 1;
      await phase('POST bookings', async (c, i) => (await post(key(), '/v1/bookings', { owner_email: ownerEmail(tag, c), meeting_class: CLASS, ...slot(dDirect, i) })).status);
      await phase('POST bookings (taken)', async (c, i) => (await post(key(), '/v1/bookings', { owner_email: ownerEmail(tag, c), meeting_class: CLASS, ...slot(dDirect, i) })).status);
      const dHold = day; day += Math.ceil(COUNT / 40) + 1;
      const holds: string[][] = Array.from({ length: CLIENTS }, () => []);
      await phase('POST holds', async (c, i) => {
        const r = await post(key(), '/v1/holds', { owner_email: ownerEmail(tag, c), meeting_class: CLASS, hold_scope: 'candidate', candidate: slot(dHold, i) });
        holds[c][i] = r.body?.hold_id;
        return r.status;
      });
      await phase('POST confirm', async (c, i) => (await post(key(), `/v1/bookings/${holds[c][i]}/confirm`, slot(dHold, i))).status);
    }
  } finally {
    await stopServer(server.child);
    if (opt('phases-out')) fs.writeFileSync(opt('phases-out')!, JSON.stringify(phases));
    await cleanup(handle.db, seeded.customerId);
    await handle.close();
  }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
