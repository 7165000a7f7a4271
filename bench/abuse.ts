/**
 * Abuse benchmark (issue 9, "one request must never hold the event loop"): the worst request of
 * each kind found when the service was attacked, plus a 31-day search and decisions for an owner
 * with 100 hard blocks, against the production server.
 *
 *   npx tsx bench/abuse.ts            full run (writes its section of docs/benchmarks.md)
 *   npx tsx bench/abuse.ts --quick    fewer requests, shorter health phases (no docs unless --docs)
 *
 * Per scenario:
 *   - server time of one request: the request sent N times one after the other (after a warm-up);
 *     wall ms p50 / max as the client sees them, and the server process's CPU ms per request
 *     (/proc, user + system, over the N requests). Target: <= 50 ms CPU.
 *   - GET /api/health probed one at a time every --health-period ms (default 10) for 2 x --phase
 *     seconds (default 20) in alternating segments of --segment ms (default 500): idle, and with
 *     the scenario's request sent --rate times a second (default 5, each waiting for the previous
 *     one); the interleaving keeps a shared machine's load drift out of the comparison. Target:
 *     health p99 of the busy segments <= 1.5 x the p99 of the idle ones. The first scenario sends
 *     /api/health itself: its ratio is the noise floor of the host.
 *
 * Setup: one fresh customer (deleted at the end unless --keep) with an ordinary owner (Mon-Fri
 * 09-17, a lunch block, two RRULEs, a daily limit) and a 100-rule owner (08-20 every day, the 100
 * heaviest hard blocks the limits allow, see abuse/scenarios.ts), a meeting class and a public link
 * with one meeting type on the 100-rule owner. The server runs with the in-memory rate limiter and
 * TRUST_PROXY=1; every request comes from a new client address and keys rotate, so no rate limit
 * answers in place of the work measured.
 *
 * Options: --quick, --docs / --no-docs, --keep, --n=N (requests per scenario, default 20),
 *   --rate=R, --phase=S, --segment=MS, --health-period=MS, --port=P (default a free one),
 *   --reuse-build (reuse the staged build), --in-place [--no-build], --base-url=URL (a running
 *   server on BENCH_DATABASE_URL, with TRUST_PROXY=1).
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench, created when missing).
 */
import os from 'node:os';
import path from 'node:path';
import type { DbHandle } from '@/db/client';
import { openPostgres } from '@/db/drivers/postgres';
import { mintApiKey } from '@/server/domain/agentService';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { newId } from '@/server/domain/ids';
import { cleanup } from './availability/seed';
import { writeBenchSection, type BenchRun } from './lib/benchDoc';
import { ensureDatabase, fmt, loadAvg, log, machineLine, textTable, vacuumTables } from './lib/measure';
import { prepareApp, startServer, stopServer } from './lib/nextServer';
import { healthUnder, repeat, send, type Client } from './abuse/probe';
import { everyDay, hundredRules, PLAIN_RULES, scenarios, TZ, type Scenario, type Setup } from './abuse/scenarios';

const ROOT = path.resolve(__dirname, '..');
const ARGV = process.argv.slice(2);
const flag = (name: string) => ARGV.includes(`--${name}`);
const opt = (name: string) => ARGV.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = flag('quick');
const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
const N = Number(opt('n') ?? (QUICK ? 8 : 20));
const HEALTH = { durationMs: Number(opt('phase') ?? (QUICK ? 2 : 20)) * 1000, periodMs: Number(opt('health-period') ?? 10), ratePerS: Number(opt('rate') ?? 5), segmentMs: Number(opt('segment') ?? 500) };
const BENCH_DB_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench';
const STAGE_DIR = path.join(os.tmpdir(), `agent-scheduler-bench-abuse-${path.basename(ROOT)}`);
const CPU_TARGET_MS = 50;
const HEALTH_RATIO_TARGET = 1.5;

type Row = { s: Scenario; statuses: string; wallP50: number; wallMax: number; cpu: number | null; idleP50: number; idleP99: number; busyP99: number; sentDuring: number };

/** The customer, owners, class, link and meeting type of the run, made through the API itself. */
async function setUp(c: Client, adminKey: string): Promise<Setup> {
  const admin = (method: Scenario['method'], p: string, body: unknown, expect: number[]) => send({ ...c, keys: [adminKey] }, { name: `setup ${method} ${p}`, method, path: p, body, expect });
  const tag = newId().slice(-10);
  const heavy = `heavy-${tag}@bench.example`;
  const plain = `plain-${tag}@bench.example`;
  for (const email of [heavy, plain]) await admin('POST', '/v1/owners', { email, time_zone: TZ }, [201]);
  await admin('POST', '/v1/meeting-classes', { name: 'bench-abuse', priority: 50 }, [201]);
  await admin('PUT', '/v1/schedule-rules', { owner_email: plain, ...PLAIN_RULES }, [200]);
  await admin('PUT', '/v1/schedule-rules', { owner_email: heavy, working_hours: everyDay(), hard_blocks: hundredRules(), max_daily_meeting_hours: 10 }, [200]);
  const alias = `abuse-${tag}`;
  const linkRes = await fetch(`${c.baseUrl}/v1/public-scheduling/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'x-forwarded-for': '198.19.0.1' },
    body: JSON.stringify({ owner_email: heavy, alias, title: 'Abuse bench' }),
  });
  const link = (await linkRes.json()) as { link_id: string };
  if (linkRes.status !== 201) throw new Error(`link: ${linkRes.status} ${JSON.stringify(link)}`);
  const slug = 'call';
  await admin('POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug, title: 'Call', duration_minutes: [15], meeting_class: 'bench-abuse' }, [201]);
  return { heavy, plain, alias, slug };
}

async function measure(c: Client, setup: Setup): Promise<Row[]> {
  const rows: Row[] = [];
  for (const s of scenarios(setup)) {
    const r = await repeat(c, s, N, 3);
    const h = await healthUnder(c, s, HEALTH);
    rows.push({ s, statuses: r.statuses, wallP50: r.wall.p50, wallMax: r.wall.max, cpu: r.cpu, idleP50: h.idle.p50, idleP99: h.idle.p99, busyP99: h.busy.p99, sentDuring: h.sentDuring });
    log(`  ${s.name}: ${r.statuses}, wall p50 ${fmt(r.wall.p50)} ms, CPU ${fmt(r.cpu)} ms/req; health p99 ${fmt(h.idle.p99)} -> ${fmt(h.busy.p99)} ms`);
  }
  return rows;
}

const HEADER = ['request', 'answer', 'wall p50 ms', 'wall max ms', 'server CPU ms/req', 'CPU target', 'health p50 idle ms', 'health p99 idle ms', 'health p99 while it runs ms', 'ratio', 'ratio target'];
const ratioOf = (r: Row) => r.busyP99 / r.idleP99;
const cpuOk = (r: Row) => r.cpu !== null && r.cpu <= CPU_TARGET_MS;
const ratioOk = (r: Row) => ratioOf(r) <= HEALTH_RATIO_TARGET;
function cells(r: Row): string[] {
  const cpu = r.cpu === null ? 'n/a' : fmt(r.cpu);
  return [r.s.name, r.statuses, fmt(r.wallP50), fmt(r.wallMax), cpu, cpuOk(r) ? 'ok' : 'MISSED', fmt(r.idleP50), fmt(r.idleP99), fmt(r.busyP99), ratioOf(r).toFixed(2), ratioOk(r) ? 'ok' : 'MISSED'];
}

/** One line per target: how many rows meet it, and how noisy the health columns were. */
function verdicts(rows: Row[]): string[] {
  const cpuMissed = rows.filter((r) => !cpuOk(r));
  const maxCpu = Math.max(...rows.map((r) => r.cpu ?? Infinity));
  const ratioMissed = rows.filter((r) => !ratioOk(r));
  const control = rows.find((r) => r.s.name.startsWith('control'));
  const idle = rows.map((r) => r.idleP99);
  const p50 = rows.map((r) => r.idleP50);
  return [
    cpuMissed.length === 0
      ? `Server CPU: every row within ${CPU_TARGET_MS} ms (at most ${fmt(maxCpu)} ms per request).`
      : `Server CPU: ${cpuMissed.length} of ${rows.length} rows above ${CPU_TARGET_MS} ms (${cpuMissed.map((r) => r.s.name).join('; ')}).`,
    `Health ratio: ${rows.length - ratioMissed.length} of ${rows.length} rows within ${HEALTH_RATIO_TARGET}` +
      (control ? `; the control row (health itself as the request) ${ratioOf(control).toFixed(2)}` : '') +
      `; idle health p99 ranged ${fmt(Math.min(...idle))} to ${fmt(Math.max(...idle))} ms across rows while its p50 stayed ${fmt(Math.min(...p50))} to ${fmt(Math.max(...p50))} ms.`,
  ];
}

/** The section of docs/benchmarks.md: the worst kind of request against each target. */
function benchRun(rows: Row[], verdict: string[]): BenchRun {
  const worstBy = (by: (r: Row) => number) => rows.reduce((w, r) => (by(r) > by(w) ? r : w));
  const cpu = worstBy((r) => r.cpu ?? Infinity);
  const ratio = worstBy(ratioOf);
  const control = rows.find((r) => r.s.name.startsWith('control'));
  return {
    measures: `The worst request of each kind issue 9 found (evaluate with any span, pathological hard-block RRULEs, instants near the end of year 9999), a 31-day search, and decisions for an owner with the 100 heaviest hard blocks the limits allow (docs/reliability.md "Limits on work per request"), against the production build: the server's CPU per request, and \`/api/health\`'s p99 while the request runs against its idle p99.`,
    command: 'npx tsx bench/abuse.ts',
    run: `npx tsx bench/abuse.ts${ARGV.length ? ' ' + ARGV.join(' ') : ''}`,
    figures: [
      { figure: `server CPU per request, worst of ${rows.length} kinds (${cpu.s.name})`, target: `<= ${CPU_TARGET_MS} ms`, latest: `${fmt(cpu.cpu)} ms`, met: rows.every(cpuOk) },
      { figure: `/api/health p99 while the request runs / idle, worst of ${rows.length} kinds (${ratio.s.name})`, target: `<= ${HEALTH_RATIO_TARGET}x`, latest: `${ratioOf(ratio).toFixed(2)}x`, met: rows.every(ratioOk) },
      ...(control ? [{ figure: "the same ratio with /api/health itself as the request (the host's noise)", latest: `${ratioOf(control).toFixed(2)}x` }] : []),
    ],
    notes: [...(QUICK ? ['A quick run: fewer requests and shorter health phases.'] : []), ...verdict],
  };
}

function report(rows: Row[], notes: string[]): void {
  const info = [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${machineLine()}, load average at the end ${loadAvg()}`,
    `- Node ${process.version}; run: \`npx tsx bench/abuse.ts${ARGV.length ? ' ' + ARGV.join(' ') : ''}\`${QUICK ? ' (quick)' : ''}`,
    `- ${N} requests per scenario (after 3 of warm-up) for the wall and CPU columns; health probed every ${HEALTH.periodMs} ms for ${(2 * HEALTH.durationMs) / 1000} s in alternating ${HEALTH.segmentMs} ms segments, idle and with the request sent ${HEALTH.ratePerS} times a second (each waiting for the previous)`,
    ...notes.map((n) => `- ${n}`),
  ];
  const verdict = verdicts(rows);
  console.log('\nAbuse benchmark (times in ms)');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log('');
  console.log(textTable(HEADER, rows.map(cells), 2));
  console.log(`\n${verdict.join('\n')}`);
  if (WRITE_DOCS) writeBenchSection('abuse', benchRun(rows, verdict));
}

async function main(): Promise<void> {
  await ensureDatabase(BENCH_DB_URL);
  const handle: DbHandle = await openPostgres(BENCH_DB_URL, 4, path.join(ROOT, 'db', 'migrations'));
  const boot = await bootstrapCustomer(handle.db, `abuse bench ${newId().slice(-6)}`);
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  const notes: string[] = [];
  try {
    await vacuumTables(BENCH_DB_URL);
    const keys: string[] = [];
    for (let i = 0; i < 20; i++) keys.push((await mintApiKey(handle.db, boot.customer_id, null, boot.agent_id, `abuse-${i}`, new Date())).api_key);
    const baseUrl = opt('base-url');
    if (!baseUrl) {
      const app = prepareApp(ROOT, STAGE_DIR, { reuse: flag('reuse-build'), inPlace: flag('in-place'), noBuild: flag('no-build') });
      const port = opt('port') ? Number(opt('port')) : undefined;
      server = await startServer(app.dir, { DATABASE_URL: BENCH_DB_URL, LOG_LEVEL: 'silent', TRUST_PROXY: '1' }, [], port);
      notes.push(`production build served by scripts/serve.mjs from ${flag('in-place') ? 'this checkout' : 'a staged copy of this checkout'}; in-memory rate limiter; fetch with keep-alive`);
    } else notes.push(`running server at ${baseUrl}`);
    const c: Client = { baseUrl: baseUrl ?? server!.baseUrl, keys, pid: server?.child.pid };
    const setup = await setUp(c, boot.api_key);
    notes.push('the machine is shared (2 cores, other builds and tests running): wall times and health latencies are noisy; CPU per request is the steadier figure');
    report(await measure(c, setup), notes);
  } finally {
    if (server) await stopServer(server.child);
    if (!flag('keep')) await cleanup(handle.db, boot.customer_id);
    await handle.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
