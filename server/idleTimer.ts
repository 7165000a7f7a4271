/**
 * The schedule of a background loop that rests when there is nothing to do (docs/operations.md
 * "Idle"). A round runs `baseMs` after the previous one while rounds find work; while they find
 * none, the pause doubles up to `maxMs`. A round may say when its next known work falls due
 * (`dueAt`: the next hold to expire, the next calendar to sync): the loop then wakes by that time,
 * though never sooner than `baseMs` after the round. `nudge()` says that new work may have
 * arrived in this process (a write request; scripts/serve.mjs calls the activity hook of
 * server/startup.ts): the next round is then at most `baseMs` away and the pause starts over.
 * Rounds never overlap.
 */
export type RoundResult = { busy: boolean; dueAt?: Date | null };
export type IdleTimer = { stop(): void; nudge(): void };

export function startIdleTimer(round: () => Promise<RoundResult>, opts: { baseMs: number; maxMs: number }): IdleTimer {
  const baseMs = opts.baseMs;
  const maxMs = Math.max(baseMs, opts.maxMs);
  let pause = baseMs;
  let stopped = false;
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;

  const arm = (at: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(tick, Math.max(0, at - Date.now()));
    timer.unref?.();
  };
  const tick = async () => {
    timer = undefined;
    timerAt = Infinity;
    if (stopped || running) return;
    running = true;
    let next: RoundResult = { busy: true };
    try {
      next = await round();
    } finally {
      running = false;
      pause = next.busy ? baseMs : Math.min(maxMs, pause * 2);
      const now = Date.now();
      let at = now + pause;
      if (next.dueAt) at = Math.min(at, Math.max(next.dueAt.getTime() + 5, now + baseMs));
      // A nudge during the round may have asked for sooner.
      if (at < timerAt) arm(at);
    }
  };

  arm(Date.now() + baseMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    nudge() {
      pause = baseMs;
      if (!running && timerAt > Date.now() + baseMs) arm(Date.now() + baseMs);
    },
  };
}
