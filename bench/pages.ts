/**
 * Browser page benchmark: what a phone gets from the production build.
 *
 *   npx tsx bench/pages.ts                 full run (writes its section of docs/benchmarks.md)
 *   npx tsx bench/pages.ts --reuse-build   reuse the staged build in $TMPDIR/agent-scheduler-bench-pages
 *
 * For each page, in Debian's Chromium at 390x844 with 4x CPU throttling (CDP
 * Emulation.setCPUThrottlingRate) and a fresh browser context per load (cold cache):
 *   - first-load JavaScript: every script the page loads until the network is idle,
 *     gzip-compressed here (level 6, what a compressing proxy sends), summed;
 *   - Largest Contentful Paint (PerformanceObserver, buffered), median of --lcp-loads loads;
 *   - server response time: GET of the page's HTML with Node's fetch (keep-alive, concurrency 1,
 *     until the whole body arrived), p50/p99 over --loads loads after 5 warm-up loads;
 *   - the framework floor: the gzip size of the build's rootMainFiles (.next/build-manifest.json),
 *     which every app router page loads before any page code.
 * Pages: the empty page (an address no route has: the root not-found, with no client code of
 * ours; the public pages' JavaScript budget is counted from it), the public meeting type page
 * (/{alias}/{slug}), the status page (the status_url with Accept: text/html), and, when the build has them, the owner's inbox and week view with 300
 * events (signed in as the demo owner with its password).
 *
 * Data: a fresh embedded database (`cli seed-demo` before the server starts: demo owner, classes,
 * key, password), then through the REST API: rules (every day 07:00-21:00, no daily limit), a
 * link with one meeting type, one public proposal, and 300 bookings in next week (3 agents, under
 * the per-key booking limit).
 *
 * Options:
 *   --loads=N          server response samples per page (default 50)
 *   --lcp-loads=N      browser loads per page for LCP (default 5)
 *   --reuse-build / --in-place [--no-build]   see bench/lib/nextServer.ts
 *   --port=N           server port (default 3325)
 *   --inbox-path=P     default /dashboard
 *   --week-path=P      default /dashboard/calendar?week={monday} ({monday}: the seeded week's Monday, YYYY-MM-DD)
 *   --verbose          name each load's LCP element (--verbose-js: list each script and its gzip size)
 *   --no-docs          do not write its section of docs/benchmarks.md
 *   --server-only      skip the browser loads (server response times only; for profiling, implies --no-docs)
 *   --serve            seed, sign in, print the pages' URLs and the owner's cookie, and serve until SIGUSR2 (no measurements; tsx itself exits on SIGINT, leaving the server)
 *   --cpu-prof=DIR     run the server under `node --cpu-prof` and write its profile into DIR (open in Chrome DevTools)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { chromium, type Browser, type BrowserContext } from '@playwright/test';
import { writeBenchSection, type BenchRun, type Figure } from './lib/benchDoc';
import { fmt, loadAvg, log, machineLine, markdownTable, stats } from './lib/measure';
import { prepareApp, startServer, stopServer } from './lib/nextServer';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = new Map(process.argv.slice(2).map((a) => { const [k, v] = a.replace(/^--/, '').split('='); return [k, v ?? 'true'] as const; }));
const LOADS = Number(args.get('loads') ?? 50);
const LCP_LOADS = Number(args.get('lcp-loads') ?? 5);
const PORT = Number(args.get('port') ?? 3325);
const INBOX_PATH = args.get('inbox-path') ?? '/dashboard';
const WEEK_PATH = args.get('week-path') ?? '/dashboard/calendar?week={monday}';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const SERVER_ONLY = args.has('server-only');
const CPU_PROF = args.get('cpu-prof');
/** Public pages' first-load JS: at most this much above the empty page's, measured in the same run (issue 23). */
const TARGETS = { publicJsAboveEmptyKb: 10, publicLcpMs: 1500, ownerLcpMs: 2000, p99Ms: 100 };

type PageSpec = { name: string; kind: 'public' | 'owner' | 'empty'; url: string; accept?: string; /** Also time until this selector exists (content rendered in the browser). */ ready?: string };
type PageResult = PageSpec & { jsGzipKb: number; jsFiles: number; lcpMs: number[]; readyMs: number[]; serverMs: ReturnType<typeof stats>; status: number };

function cli(appDir: string, pgliteDir: string, argv: string[]): Record<string, string> {
  const out = execFileSync(process.execPath, [path.join(appDir, 'node_modules/tsx/dist/cli.mjs'), path.join(appDir, 'scripts/cli.ts'), ...argv], {
    cwd: appDir,
    env: { ...process.env, PGLITE_DIR: pgliteDir, DATABASE_URL: '', DB_DRIVER: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.toString());
}

async function rest(base: string, key: string | null, method: string, p: string, body?: unknown, ok = [200, 201]) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!ok.includes(res.status)) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function nextMonday(now = new Date()): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  d.setUTCDate(d.getUTCDate() + (((8 - d.getUTCDay()) % 7) || 7));
  return d;
}

/** The demo owner's world: link, type, one proposal, 300 bookings next week. */
async function seed(base: string, demo: Record<string, string>) {
  const key = demo.api_key;
  const owner = demo.owner_email;
  const day = [{ start: '07:00', end: '21:00' }];
  await rest(base, key, 'PUT', '/v1/schedule-rules', { owner_email: owner, working_hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, day])), hard_blocks: [], max_daily_meeting_hours: null });
  const link = await rest(base, key, 'POST', '/v1/public-scheduling/links', { owner_email: owner, alias: 'bench-pages', title: 'Book time with the demo owner' });
  await rest(base, key, 'POST', `/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug: 'intro', title: 'Intro call', duration_minutes: [30, 60], meeting_class: 'external', attendee_limit: 3 });
  const times = await rest(base, null, 'GET', '/public/schedules/bench-pages/meeting-types/intro/suggested-times');
  const slot = times.suggested_times[0];
  const proposal = await rest(base, null, 'POST', '/public/schedules/bench-pages/booking-proposals', {
    requester_contact: { email: 'bench.requester@example.com', name: 'Bench Requester' },
    attendees: [],
    public_meeting_type: 'intro',
    duration_minutes: 30,
    requested_window: slot,
  });
  // 300 bookings in the week after next (clear of the demo's own activity): 3 agents x 100 (the booking limit is 120 a minute per key), 12 minutes each, on a grid.
  const monday = new Date(nextMonday().getTime() + 14 * 86_400_000);
  const keys: string[] = [];
  for (let i = 0; i < 3; i++) {
    const agent = await rest(base, key, 'POST', '/v1/agents', { name: `bench booker ${i}`, owner_scope: 'org:*', permissions: ['create_bookings', 'read_availability'] });
    keys.push((await rest(base, key, 'POST', `/v1/agents/${agent.agent_id}/keys`, {})).api_key);
  }
  const classes = ['external', 'internal', 'focus'];
  let made = 0;
  await Promise.all(
    keys.map(async (k, a) => {
      for (let i = 0; i < 100; i++) {
        const n = a * 100 + i; // 0..299: 43 per day, 12 minutes apart from 07:00 UTC
        const start = new Date(monday.getTime() + Math.floor(n / 43) * 86_400_000 + (6 * 60 + (n % 43) * 15) * 60_000);
        const res = await rest(base, k, 'POST', '/v1/bookings', { owner_email: owner, meeting_class: classes[n % 3], start: start.toISOString(), end: new Date(start.getTime() + 12 * 60_000).toISOString(), title: `Bench ${n}` }, [201, 409]);
        if (res?.booking_id) made++;
      }
    }),
  );
  log(`  seeded: link, type, proposal, ${made} bookings from ${monday.toISOString().slice(0, 10)}`);
  return { statusUrl: proposal.status_url as string, monday: monday.toISOString().slice(0, 10), bookings: made };
}

async function signIn(context: BrowserContext, base: string, email: string, password: string): Promise<boolean> {
  const csrf = await (await context.request.get(`${base}/api/auth/csrf`)).json();
  await context.request.post(`${base}/api/auth/callback/credentials`, { form: { csrfToken: csrf.csrfToken, email, password, json: 'true' }, maxRedirects: 0 });
  return (await context.request.get(`${base}/api/trpc/session.me`)).ok();
}

async function cookieHeader(context: BrowserContext): Promise<string> {
  return (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
}

/** One cold load in a fresh context: scripts (gzip) and LCP. */
async function browserLoad(browser: Browser, spec: PageSpec, login: ((c: BrowserContext) => Promise<boolean>) | null) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, locale: 'en-GB', timezoneId: 'Asia/Tokyo' });
  try {
    if (login && !(await login(context))) throw new Error('sign-in failed');
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const scripts = new Map<string, Promise<number>>();
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script' && !scripts.has(r.url())) scripts.set(r.url(), r.body().then((b) => zlib.gzipSync(b, { level: 6 }).length, () => 0));
    });
    const res = await page.goto(spec.url, { waitUntil: 'networkidle' });
    const ready = spec.ready ? await (await page.waitForFunction((sel) => (document.querySelector(sel) ? window.performance.now() : false), spec.ready)).jsonValue() : NaN;
    const lcp = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          new PerformanceObserver((list) => {
            const entries = list.getEntries();
            const last = entries[entries.length - 1] as PerformanceEntry & { element?: Element | null };
            (window as unknown as { __lcpElement?: string }).__lcpElement = `${last.element?.tagName ?? '?'} "${(last.element?.textContent ?? '').slice(0, 40)}"`;
            resolve(last.startTime);
          }).observe({ type: 'largest-contentful-paint', buffered: true });
          setTimeout(() => resolve(NaN), 5000);
        }),
    );
    const sizes = await Promise.all(scripts.values());
    if (args.has('verbose')) log(`    LCP ${Math.round(lcp)} ms: ${await page.evaluate(() => (window as unknown as { __lcpElement?: string }).__lcpElement)}`);
    if (args.has('verbose-js')) [...scripts.keys()].forEach((u, i) => log(`    ${(sizes[i] / 1024).toFixed(1).padStart(6)} kB  ${u}`));
    return { status: res?.status() ?? 0, lcp, ready: Number(ready), jsBytes: sizes.reduce((a, b) => a + b, 0), jsFiles: sizes.length };
  } finally {
    await context.close();
  }
}

/** CPU time (ms) the server process has used, all threads and its main thread alone (Linux /proc; null elsewhere). */
function serverCpuMs(pid: number | undefined): { all: number; main: number } | null {
  try {
    const ticks = (stat: string) => {
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, USER_HZ 100
    };
    return { all: ticks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')), main: ticks(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')) };
  } catch {
    return null;
  }
}

async function serverTimes(spec: PageSpec, cookie: string | null, serverPid?: number): Promise<ReturnType<typeof stats>> {
  const headers: Record<string, string> = { accept: spec.accept ?? 'text/html' };
  if (cookie) headers.cookie = cookie;
  const once = async () => {
    const t0 = performance.now();
    const res = await fetch(spec.url, { headers });
    await res.arrayBuffer();
    if (res.status !== (spec.kind === 'empty' ? 404 : 200)) throw new Error(`${spec.url}: ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) await once();
  const samples: number[] = [];
  const t0 = process.hrtime.bigint();
  const cpu0 = serverCpuMs(serverPid);
  for (let i = 0; i < LOADS; i++) samples.push(await once());
  const cpu1 = serverCpuMs(serverPid);
  // On-CPU time per load: unlike the response time, hardly moved by other processes on a shared host.
  if (cpu0 && cpu1) log(`  ${spec.name}: server CPU ${fmt((cpu1.all - cpu0.all) / LOADS)} ms per load (main thread ${fmt((cpu1.main - cpu0.main) / LOADS)} ms)`);
  // The measured loads' span on the monotonic clock the CPU profile's timestamps use (µs), to cut the profile per page.
  if (CPU_PROF) fs.appendFileSync(path.join(path.resolve(CPU_PROF), 'windows.jsonl'), JSON.stringify({ page: spec.name, startUs: Number(t0 / 1000n), endUs: Number(process.hrtime.bigint() / 1000n) }) + '\n');
  return stats(samples);
}

/** Gzip size (kB) of the build's `rootMainFiles` (what every app router page loads whatever it shows), or null if unreadable. */
function frameworkFloorKb(appDir: string): number | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(appDir, '.next', 'build-manifest.json'), 'utf8')) as { rootMainFiles: string[] };
    const bytes = manifest.rootMainFiles.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(appDir, '.next', f)), { level: 6 }).length, 0);
    return bytes / 1024;
  } catch {
    return null;
  }
}

async function main() {
  const stage = path.join(os.tmpdir(), 'agent-scheduler-bench-pages');
  const app = prepareApp(ROOT, stage, { reuse: args.has('reuse-build'), inPlace: args.has('in-place'), noBuild: args.has('no-build') });
  const pgliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pages-db-'));
  const demo = cli(app.dir, path.join(pgliteDir, 'pglite'), ['seed-demo', '--json']);
  if (CPU_PROF) fs.mkdirSync(path.resolve(CPU_PROF), { recursive: true });
  const nodeArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF)}`] : [];
  const server = await startServer(app.dir, { PGLITE_DIR: path.join(pgliteDir, 'pglite'), LOG_LEVEL: 'silent' }, nodeArgs, PORT);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const results: PageResult[] = [];
  const skipped: string[] = [];
  let weekBookings = 0;
  try {
    const base = server.baseUrl;
    const seeded = await seed(base, demo);
    weekBookings = seeded.bookings;
    const login = (c: BrowserContext) => signIn(c, base, demo.owner_email, demo.owner_password);
    const specs: PageSpec[] = [
      // The empty app-router page of this build: an address no route has (three segments, past the
      // booking pages' /{alias}/{slug}) renders the root not-found, a server component with no client
      // code of ours, so its scripts are what any page of the build loads before our own.
      { name: 'Empty page (the 404, no client code of ours)', kind: 'empty', url: `${base}/bench-pages/no/such-page` },
      { name: 'Public meeting type page', kind: 'public', url: `${base}/bench-pages/intro`, ready: 'button[data-start]' },
      { name: 'Status page', kind: 'public', url: seeded.statusUrl },
      { name: 'Owner inbox', kind: 'owner', url: `${base}${INBOX_PATH}` },
      { name: 'Week view, 300 events', kind: 'owner', url: `${base}${WEEK_PATH.replace('{monday}', seeded.monday)}` },
    ];
    // Sign in once: each cold browser load gets the session cookie (signing in per load runs into the sign-in rate limit).
    const ownerContext = await browser.newContext();
    const signedIn = await login(ownerContext);
    const ownerCookie = signedIn ? await cookieHeader(ownerContext) : null;
    const sessionCookies = signedIn ? await ownerContext.cookies() : [];
    await ownerContext.close();
    if (args.has('serve')) {
      // Seeded and signed in: keep serving for a profiler or curl until interrupted.
      process.stdout.write(JSON.stringify({ pages: specs.map((s) => s.url), ownerCookie }, null, 2) + `\nServing; SIGUSR2 to this process (pid ${process.pid}) stops.\n`);
      await new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()));
      return;
    }
    const withSession = async (c: BrowserContext) => {
      await c.addCookies(sessionCookies);
      return signedIn;
    };
    const measured: { spec: PageSpec; auth: typeof withSession | null }[] = [];
    for (const spec of specs) {
      const auth = spec.kind === 'owner' ? withSession : null;
      if (spec.kind === 'owner') {
        const probe = await fetch(spec.url, { headers: { accept: 'text/html', cookie: ownerCookie ?? '' }, redirect: 'manual' });
        await probe.arrayBuffer();
        if (!ownerCookie || probe.status !== 200) {
          skipped.push(`${spec.name} (${spec.url.replace(base, '')}: ${ownerCookie ? `HTTP ${probe.status}` : 'sign-in failed'}; not in this build)`);
          continue;
        }
      }
      measured.push({ spec, auth });
    }
    // Server response times first, for every page, while Chromium is idle: a throttled browser
    // load leaves the browser's processes busy for a while after it, and on two cores that
    // work would be timed as the server's (docs/benchmarks/history/2026-11-25-browser-pages.md).
    const serverMsByPage = new Map<string, ReturnType<typeof stats>>();
    for (const { spec } of measured) {
      log(`  ${spec.name}: ${LOADS} server loads`);
      const serverMs = await serverTimes(spec, spec.kind === 'owner' ? ownerCookie : null, server.child.pid);
      log(`  ${spec.name}: server p50 ${fmt(serverMs.p50)} ms, p99 ${fmt(serverMs.p99)} ms`);
      serverMsByPage.set(spec.name, serverMs);
    }
    for (const { spec, auth } of measured) {
      log(`  ${spec.name}: browser loads`);
      const loads = [];
      for (let i = 0; i < (SERVER_ONLY ? 0 : LCP_LOADS); i++) loads.push(await browserLoad(browser, spec, auth));
      const serverMs = serverMsByPage.get(spec.name)!;
      results.push({ ...spec, status: loads[0]?.status ?? 200, jsGzipKb: (loads[0]?.jsBytes ?? 0) / 1024, jsFiles: loads[0]?.jsFiles ?? 0, lcpMs: loads.map((l) => l.lcp), readyMs: loads.map((l) => l.ready), serverMs });
    }
  } finally {
    await browser.close();
    await stopServer(server.child);
    fs.rmSync(pgliteDir, { recursive: true, force: true });
  }

  if (args.has('serve')) return;
  const emptyKb = results.find((r) => r.kind === 'empty')?.jsGzipKb;
  const rows = results.map((r) => {
    const lcp = stats(r.lcpMs.filter((v) => !Number.isNaN(v)));
    const lcpTarget = r.kind === 'public' ? TARGETS.publicLcpMs : TARGETS.ownerLcpMs;
    const above = emptyKb === undefined || r.kind === 'empty' ? '' : ` (+${fmt(r.jsGzipKb - emptyKb)})`;
    const jsOk = r.kind === 'public' && emptyKb !== undefined ? (r.jsGzipKb - emptyKb <= TARGETS.publicJsAboveEmptyKb ? 'yes' : 'no') : 'n/a';
    return [
      r.name,
      `${fmt(r.jsGzipKb)} kB${above} (${r.jsFiles} files)`,
      `${fmt(lcp.p50)} ms (${fmt(lcp.min)}-${fmt(lcp.max)})`,
      `${fmt(r.serverMs.p50)} / ${fmt(r.serverMs.p99)} ms`,
      r.kind === 'empty' ? 'the floor' : `JS ${jsOk}, LCP ${lcp.p50 <= lcpTarget ? 'yes' : 'no'}, p99 ${r.serverMs.p99 <= TARGETS.p99Ms ? 'yes' : 'no'}`,
    ];
  });
  const floorKb = frameworkFloorKb(app.dir);
  const table = markdownTable(['Page', 'First-load JS (gzip)', `LCP median of ${LCP_LOADS} (min-max)`, `Server p50 / p99 (${LOADS} loads)`, 'Targets met'], rows);
  const readyLines = results
    .filter((r) => r.ready)
    .map((r) => {
      const ready = stats(r.readyMs.filter((v) => !Number.isNaN(v)));
      return `${r.name}: the suggested times (\`${r.ready}\`, rendered in the browser in the requester's zone) are on screen after ${fmt(ready.p50)} ms (median; ${fmt(ready.min)}-${fmt(ready.max)}).`;
    });
  const section = [
    '## Browser pages',
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}; ${app.buildSeconds === null ? 'reused build' : `build ${fmt(app.buildSeconds)} s`}.`,
    'Chromium (Debian) at 390x844, 4x CPU throttling, cold cache per load, no network throttling (loopback);',
    `embedded database. Targets: public pages' first-load JS <= ${TARGETS.publicJsAboveEmptyKb} kB above the empty page's (in brackets), LCP <= 1.5 s; inbox and week view LCP <= 2.0 s;`,
    'server response p99 <= 100 ms. Server time is the whole HTML response measured from Node (keep-alive, one at a time);',
    `with 50 loads the p99 is the slowest load. The week view shows ${weekBookings} seeded bookings (plus the demo's own, none that week).`,
    `Load average at the end: ${loadAvg()} (the host is shared).`,
    '',
    table,
    '',
    ...readyLines.map((l) => `${l}\n`),
    ...(floorKb === null
      ? []
      : [
          `Framework floor: the build's root main files (React DOM, the app router runtime and the bundler's runtime, which every app router page loads before any of our code) are ${fmt(floorKb)} kB gzip of the totals above; the empty page adds the router's per-page chunk and the root error boundaries to them.`,
          '',
        ]),
    ...(skipped.length ? [`Not measured: ${skipped.join('; ')}.`, ''] : []),
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (!args.has('no-docs') && !SERVER_ONLY) writeBenchSection('pages', benchRun(results, emptyKb, floorKb, skipped));
}

/** The section of docs/benchmarks.md: each page's JavaScript (public pages), LCP and server p99 against its target. */
function benchRun(results: PageResult[], emptyKb: number | undefined, floorKb: number | null, skipped: string[]): BenchRun {
  const pages = results.filter((r) => r.kind !== 'empty');
  const lcpOf = (r: PageResult) => stats(r.lcpMs.filter((v) => !Number.isNaN(v))).p50;
  const ms = (v: number) => `${v >= 1000 ? Math.round(v).toLocaleString('en-US') : fmt(v)} ms`;
  const figures: Figure[] = [
    ...(emptyKb === undefined
      ? []
      : pages.filter((r) => r.kind === 'public').map((r) => ({ figure: `${r.name}: first-load JS above the empty page`, target: `<= +${TARGETS.publicJsAboveEmptyKb} kB`, latest: `+${fmt(r.jsGzipKb - emptyKb)} kB (${fmt(r.jsGzipKb)} kB gzip)`, met: r.jsGzipKb - emptyKb <= TARGETS.publicJsAboveEmptyKb }))),
    ...pages.map((r) => {
      const target = r.kind === 'public' ? TARGETS.publicLcpMs : TARGETS.ownerLcpMs;
      return { figure: `${r.name}: LCP`, target: `<= ${(target / 1000).toFixed(1)} s`, latest: ms(lcpOf(r)), met: lcpOf(r) <= target };
    }),
    ...pages.map((r) => ({ figure: `${r.name}: server p99`, target: `<= ${TARGETS.p99Ms} ms`, latest: ms(r.serverMs.p99), met: r.serverMs.p99 <= TARGETS.p99Ms })),
    ...(emptyKb === undefined ? [] : [{ figure: 'empty page (no client code of ours): first-load JS', latest: `${fmt(emptyKb)} kB gzip` }]),
  ];
  return {
    measures: "The owner's and the requester's pages in Chromium (390x844, 4x CPU throttling, cold cache, loopback) against the production build on the embedded database: first-load JavaScript against an empty page of the same build, LCP (median of 5 loads), and the server's HTML response time over 50 loads.",
    command: 'npx tsx bench/pages.ts',
    run: `npx tsx bench/pages.ts${args.size ? ' ' + process.argv.slice(2).join(' ') : ''}`,
    figures,
    notes: [
      ...(floorKb === null ? [] : [`The app router's own floor is most of every page's JavaScript: React DOM and the router runtime are ${fmt(floorKb)} kB gzip of these totals.`]),
      ...(skipped.length ? [`Not measured: ${skipped.join('; ')}.`] : []),
    ],
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
