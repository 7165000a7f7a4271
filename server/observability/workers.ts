/**
 * The background workers of this process (sweeper, calendar sync, webhook delivery) and when
 * each last ran a round, for GET /api/health/ready (server/health.ts). On globalThis: the
 * workers start in instrumentation.ts's bundle and the health route reads them from its own.
 */
type WorkerState = { startedAt: number; beatAt: number; staleAfterMs: number; stopped: boolean };
const KEY = Symbol.for('agent-scheduler.workers');
const workers: Map<string, WorkerState> = ((globalThis as Record<symbol, Map<string, WorkerState> | undefined>)[KEY] ??= new Map());

/** A worker started; it counts as stalled when no round begins within `staleAfterMs`. */
export function workerStarted(name: string, staleAfterMs: number): void {
  const now = Date.now();
  workers.set(name, { startedAt: now, beatAt: now, staleAfterMs, stopped: false });
}

/** A round began (cheap: one clock read and a store). */
export function workerBeat(name: string): void {
  const w = workers.get(name);
  if (w) w.beatAt = Date.now();
}

export function workerStopped(name: string): void {
  const w = workers.get(name);
  if (w) w.stopped = true;
}

export type WorkerReport = { name: string; ok: boolean; last_round_seconds_ago: number; error?: string };

/** Every worker started in this process, and whether it is running. */
export function workerReports(now = Date.now()): WorkerReport[] {
  return [...workers.entries()].map(([name, w]) => {
    const ago = Math.round((now - w.beatAt) / 1000);
    if (w.stopped) return { name, ok: false, last_round_seconds_ago: ago, error: 'stopped' };
    if (now - w.beatAt > w.staleAfterMs) return { name, ok: false, last_round_seconds_ago: ago, error: `no round for ${ago} s` };
    return { name, ok: true, last_round_seconds_ago: ago };
  });
}
