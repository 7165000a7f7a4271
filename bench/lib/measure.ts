/**
 * Small measurement helpers shared by bench scripts: percentiles, host and
 * process CPU from /proc, load average and tables. The sections of
 * docs/benchmarks.md are written by bench/lib/benchDoc.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import postgres from 'postgres';

export type Stats = { n: number; mean: number; p50: number; p99: number; min: number; max: number };

export function stats(samples: number[]): Stats {
  if (samples.length === 0) return { n: 0, mean: NaN, p50: NaN, p99: NaN, min: NaN, max: NaN };
  const s = Float64Array.from(samples).sort();
  const rank = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  let sum = 0;
  for (const v of s) sum += v;
  return { n: s.length, mean: sum / s.length, p50: rank(50), p99: rank(99), min: s[0], max: s[s.length - 1] };
}

export const fmt = (v: number | null | undefined): string =>
  v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);

export function log(msg: string): void {
  process.stderr.write(msg + '\n');
}

/** Host CPU counters (/proc/stat). */
export type CpuMark = { idle: number; total: number } | null;
export function cpuMark(): CpuMark {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: f[3] + (f[4] ?? 0), total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}
/** Share of all cores busy between two readings (everything on the host). */
export function busyBetween(a: CpuMark, b: CpuMark): number | null {
  if (!a || !b || b.total <= a.total) return null;
  return 1 - (b.idle - a.idle) / (b.total - a.total);
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** CPU ms (user + system) consumed so far by a process, from /proc; null when it is gone. */
export function processCpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** This process's CPU ms so far. */
export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * CPU ms consumed so far by each process named `postgres` on this host (the
 * server and all its backends, other users' sessions included), by pid.
 */
export function postgresCpuByPid(): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== 'postgres') continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), (Number(f[11]) + Number(f[12])) * TICK_MS);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Resident memory of a process and its descendants (kB): current VmRSS summed, and the root's VmHWM. */
export function memoryKb(pid: number): { rss: number; hwm: number } | null {
  const read = (p: number) => {
    try {
      const s = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const num = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0);
      return { rss: num('VmRSS'), hwm: num('VmHWM') };
    } catch {
      return null;
    }
  };
  const root = read(pid);
  if (!root) return null;
  let rss = root.rss;
  for (const child of descendants(pid)) rss += read(child)?.rss ?? 0;
  return { rss, hwm: root.hwm };
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const t of tasks) {
      let kids = '';
      try {
        kids = fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
      } catch {
        continue;
      }
      for (const k of kids.split(/\s+/).filter(Boolean).map(Number)) {
        out.push(k);
        walk(k);
      }
    }
  };
  walk(pid);
  return out;
}

/** Samples memoryKb(pid) every `everyMs` until stopped; max of the summed RSS. */
export function sampleMemory(pid: number, everyMs = 100): { stop(): { maxRssKb: number; hwmKb: number; samples: number } } {
  let maxRss = 0;
  let hwm = 0;
  let samples = 0;
  const tick = () => {
    const m = memoryKb(pid);
    if (!m) return;
    samples++;
    maxRss = Math.max(maxRss, m.rss);
    hwm = Math.max(hwm, m.hwm);
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return { maxRssKb: maxRss, hwmKb: hwm, samples };
    },
  };
}

export const loadAvg = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' ');

/** With waitS > 0: wait (at most waitS seconds) for a 2-second stretch in which the host is <= 20 % busy. */
export async function waitIdle(waitS: number): Promise<void> {
  if (!waitS) return;
  const deadline = Date.now() + waitS * 1000;
  while (Date.now() < deadline) {
    const a = cpuMark();
    await new Promise((r) => setTimeout(r, 2000));
    const busy = busyBetween(a, cpuMark());
    if (busy === null || busy <= 0.2) return;
  }
  log(`  (host still busy after waiting ${waitS} s; measuring anyway)`);
}

export function markdownTable(header: string[], body: string[][], leftCols = 1): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < leftCols ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const r of body) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

export function textTable(header: string[], body: string[][], leftCols = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < leftCols ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const admin = postgres(u.toString(), { max: 1, onnotice: () => {} });
  try {
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length === 0) {
      log(`  creating database ${name}`);
      await admin.unsafe(`create database "${name.replace(/"/g, '""')}"`);
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * VACUUM ANALYZE the service's busiest tables. Autovacuum may be off (it is on the machines these
 * benchmarks were written on): dead rows left by earlier runs then pile up in the exclusion
 * constraint's GiST index and the unique indexes and slow later runs down. Every measurement
 * starts from vacuumed tables so runs compare. Then a CHECKPOINT writes out the pages seeding and
 * VACUUM dirtied, so a checkpoint does not flush them in the middle of a measurement (seconds of
 * I/O after millions of seeded rows); skipped where the role may not run one.
 */
export async function vacuumTables(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe('vacuum analyze claims, audit_log, idempotency_records, api_keys, notifications, owners, calendars');
    await sql.unsafe('checkpoint').catch(() => {});
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** A free port: BENCH_PORT when set (engineers sharing a machine each have a range), otherwise any free one. */
export async function freePort(): Promise<number> {
  if (process.env.BENCH_PORT) return Number(process.env.BENCH_PORT);
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export function machineLine(): string {
  return `${os.cpus().length} cores (\`nproc\` ${execFileSync('nproc').toString().trim()}), ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM`;
}
