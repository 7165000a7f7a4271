/**
 * The parts of an availability search, as a benchmark times them (bench/collective-search.ts,
 * docs/benchmarks.md "Collective search"): the owners and class (look-ups), the facts of every
 * window (fact load), the walk (members built, grid walked), and then either the answer (each
 * slot in the owners' local times) or, for a refusal, the reasons per owner (a group's) and
 * next_available. A search given no clock times nothing.
 */
export type SearchPhase = 'look-ups' | 'fact load' | 'grid walk' | 'answer' | 'reasons' | 'next_available';
export type SearchClock = (phase: SearchPhase, ms: number) => void;

/** Runs `fn`, adding its time (to its promise's settling) to `phase` on `clock`. */
export function timed<T>(clock: SearchClock | undefined, phase: SearchPhase, fn: () => T): T {
  if (!clock) return fn();
  const t0 = performance.now();
  const out = fn();
  if (out instanceof Promise) return out.finally(() => clock(phase, performance.now() - t0)) as T;
  clock(phase, performance.now() - t0);
  return out;
}
