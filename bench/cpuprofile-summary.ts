/**
 * Summarise V8 CPU profiles (.cpuprofile, from `node --cpu-prof` or bench/booking.ts
 * --server-prof=DIR) by self time: per module (a package under node_modules, a file of the
 * production build, Node's internals, GC), per function, and optionally two profiles side by
 * side (docs/benchmarks.md "Tracing cost").
 *
 *   npx tsx bench/cpuprofile-summary.ts A.cpuprofile [B.cpuprofile] [--top=N] [--per=N[,M]] [--phases=FILE --phase=NAME]
 *
 * --phases/--phase: only the samples taken inside the phases of that name (bench/request-cost.ts
 *   --phases-out writes them; the profile's clock is the same monotonic clock), e.g. the confirms
 *   of a hold-and-confirm run (docs/benchmarks/history/2026-11-26-hold-confirm-cpu.md).
 *
 * With two profiles, --per=N (bookings served by each, or any count) turns self time into
 * time per operation, so servers that served different loads compare; each table then lists
 * A, B and B - A, sorted by the difference. Idle time ("(idle)") is left out of the totals.
 */
import fs from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
type Profile = { nodes: Node[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** The module a frame belongs to: a package (node_modules/<scope>/<name>), a build file, Node's internals, or V8's pseudo-frames. */
export function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    // Next.js's compiled copies of other packages are worth telling apart.
    if (pkg === 'next' && rest[1] === 'dist' && rest[2] === 'compiled') return `next/compiled/${rest[3]}`;
    if (pkg === 'next' && rest[1] === 'dist') return `next/${rest[2]}${rest[3] && !rest[3].endsWith('.js') ? `/${rest[3]}` : ''}`;
    return pkg;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const build = url.indexOf('/.next/');
  if (build >= 0) return `.next/${url.slice(build + 7).replace(/\[[^\]]*\]/g, '[]')}`;
  return url.replace(/^file:\/\//, '');
}

type Window = { from: number; to: number };

/** Self time (ms) by module and by function; with `windows`, only of the samples taken inside one of them. */
export function selfTimes(p: Profile, windows?: readonly Window[]): { total: number; byModule: Map<string, number>; byFunction: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (windows && !windows.some((w) => t >= w.from && t < w.to)) continue;
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  }
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    total += ms;
    const mod = moduleOf(url, functionName);
    byModule.set(mod, (byModule.get(mod) ?? 0) + ms);
    const fn = `${functionName || '(anonymous)'} ${mod}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  }
  return { total, byModule, byFunction };
}

function table(title: string, maps: Map<string, number>[], scale: number[], top: number): void {
  const keys = new Set(maps.flatMap((m) => [...m.keys()]));
  const rows = [...keys].map((k) => {
    const v = maps.map((m, i) => (m.get(k) ?? 0) * scale[i]);
    return { k, v, sort: v.length === 2 ? v[1] - v[0] : v[0] };
  });
  rows.sort((a, b) => Math.abs(b.sort) - Math.abs(a.sort));
  const unit = scale[0] === 1 ? 'ms' : 'µs/op';
  console.log(`\n${title}`);
  console.log(maps.length === 2 ? `| ${unit} A | ${unit} B | B - A | |` : `| ${unit} | |`);
  for (const r of rows.slice(0, top)) {
    const cells = r.v.map((x) => x.toFixed(1));
    if (maps.length === 2) cells.push((r.v[1] - r.v[0]).toFixed(1));
    console.log(`| ${cells.join(' | ')} | ${r.k} |`);
  }
}

function main(): void {
  const args = process.argv.slice(2);
  const files = args.filter((a) => !a.startsWith('--'));
  const num = (name: string, d: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
  const top = num('top', 30);
  const perArg = args.find((a) => a.startsWith('--per='))?.split('=')[1];
  if (files.length < 1 || files.length > 2) throw new Error('usage: bench/cpuprofile-summary.ts A.cpuprofile [B.cpuprofile] [--top=N] [--per=N[,M]] [--phases=FILE --phase=NAME]');
  const per = perArg ? perArg.split(',').map(Number) : null;
  const str = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  let windows: Window[] | undefined;
  const phasesFile = str('phases');
  if (phasesFile) {
    const phases = JSON.parse(fs.readFileSync(phasesFile, 'utf8')) as ({ name: string } & Window)[];
    windows = phases.filter((ph) => ph.name === str('phase'));
    if (!windows.length) throw new Error(`no phase named ${str('phase')} in ${phasesFile}: ${[...new Set(phases.map((ph) => ph.name))].join(', ')}`);
  }
  const profiles = files.map((f) => selfTimes(JSON.parse(fs.readFileSync(f, 'utf8')) as Profile, windows));
  // Per operation in µs when counts are given (one count for both, or one each).
  const scale = files.map((_, i) => (per ? 1000 / (per[i] ?? per[0]) : 1));
  files.forEach((f, i) => console.log(`${i ? 'B' : 'A'}: ${f}: ${profiles[i].total.toFixed(0)} ms busy${per ? ` (${(profiles[i].total * scale[i]).toFixed(0)} µs/op)` : ''}`));
  table('Self time by module', profiles.map((p) => p.byModule), scale, top);
  table('Self time by function', profiles.map((p) => p.byFunction), scale, top);
}

if (process.argv[1]?.endsWith('cpuprofile-summary.ts')) main();
