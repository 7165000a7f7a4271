/**
 * Self time of a V8 CPU profile (`node --cpu-prof`, e.g. bench/request-cost.ts --server-prof=DIR)
 * by function and by module: the first tool to read before a flame graph.
 *
 *   npx tsx bench/profile-summary.ts FILE.cpuprofile [--top=N] [--phases=FILE --phase=NAME] [--per=N]
 *
 * --phases/--phase: only the samples taken inside the phases of that name (request-cost.ts
 *   --phases-out; the profile's clock is the same monotonic clock). --per=N: also ms per request
 *   (N requests in the phases kept). Modules: a package under node_modules by name (next, postgres,
 *   drizzle-orm, ...), a Next.js build chunk as `chunk:<file>`, Node's own as `node:`, and V8's
 *   (garbage collector), (program) and (idle) as themselves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { opt } from './booking/options';

type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type Node = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

function moduleOf(f: Frame): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)';
  if (f.url.startsWith('node:')) return 'node:';
  const nm = f.url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = f.url.slice(nm + 14).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    // Next.js's own compiled vendored packages, named by the vendored one.
    const compiled = rest.indexOf('compiled');
    return pkg === 'next' && compiled >= 0 && rest[compiled + 1] ? `next/compiled/${rest[compiled + 1]}` : pkg;
  }
  if (f.url.includes('/.next/')) return `chunk:${path.basename(f.url)}`;
  return f.url.replace(/^file:\/\//, '');
}

function main() {
  const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--top=N] [--phases=FILE --phase=NAME] [--per=N]');
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const top = Number(opt('top') ?? 40);
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  let windows: { from: number; to: number }[] | null = null;
  if (opt('phases')) {
    const phases = JSON.parse(fs.readFileSync(opt('phases')!, 'utf8')) as { name: string; from: number; to: number }[];
    windows = phases.filter((p) => p.name === opt('phase'));
    if (!windows.length) throw new Error(`no phase named ${opt('phase')} in ${opt('phases')}: ${[...new Set(phases.map((p) => p.name))].join(', ')}`);
  }
  const selfFn = new Map<string, number>();
  const selfMod = new Map<string, number>();
  let t = prof.startTime;
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i];
    const dt = prof.timeDeltas[i + 1] ?? 0; // the time until the next sample is this sample's
    if (windows && !windows.some((w) => t >= w.from && t < w.to)) continue;
    const f = byId.get(prof.samples[i])!.callFrame;
    if (f.functionName === '(idle)') continue;
    const mod = moduleOf(f);
    const fn = `${f.functionName || '(anonymous)'} ${mod}:${f.lineNumber + 1}`;
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + dt);
    selfMod.set(mod, (selfMod.get(mod) ?? 0) + dt);
    total += dt;
  }
  const per = Number(opt('per') ?? 0);
  const row = (ms: number) => `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / (total / 1000)).toFixed(1).padStart(5)} %${per ? `${(ms / per).toFixed(3).padStart(8)} ms/req` : ''}`;
  console.log(`busy (not idle) ${(total / 1000).toFixed(1)} ms${per ? `, ${(total / 1000 / per).toFixed(3)} ms per request` : ''}`);
  console.log('\nself time by module');
  for (const [k, v] of [...selfMod].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${row(v / 1000)}  ${k}`);
  console.log('\nself time by function');
  for (const [k, v] of [...selfFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${row(v / 1000)}  ${k}`);
}
main();
