import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startIdleTimer, type RoundResult } from '@/server/idleTimer';

/**
 * server/idleTimer.ts (docs/operations.md "Idle"): the schedule of the sweeper and the calendar
 * sync. Fake timers: the rounds' times are read off the clock the timer runs on.
 */
const BASE = 1_000;
const MAX = 8_000;

let stop: (() => void) | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  stop?.();
  vi.useRealTimers();
});

/** Start a timer whose rounds answer `answer(n)`; returns the times rounds ran at. */
function run(answer: (n: number) => RoundResult) {
  const at: number[] = [];
  const t = startIdleTimer(async () => answer(at.push(Date.now()) - 1), { baseMs: BASE, maxMs: MAX });
  stop = t.stop;
  return { at, nudge: t.nudge };
}

describe('startIdleTimer', () => {
  it('doubles the pause while rounds find nothing, up to the maximum', async () => {
    const { at } = run(() => ({ busy: false }));
    await vi.advanceTimersByTimeAsync(40_000);
    expect(at).toEqual([1_000, 3_000, 7_000, 15_000, 23_000, 31_000, 39_000]);
  });

  it('keeps the base pace while rounds find work, and backs off from the first idle round', async () => {
    const { at } = run((n) => ({ busy: n < 3 }));
    await vi.advanceTimersByTimeAsync(12_000);
    expect(at).toEqual([1_000, 2_000, 3_000, 4_000, 6_000, 10_000]);
  });

  it('wakes when the next known work falls due, never sooner than the base pause', async () => {
    // Idle rounds; work falls due at 5.5 s, then (as the round at 5.5 s says) at 5.6 s, within the base pause.
    const { at } = run(() => ({ busy: false, dueAt: new Date(Date.now() < 5_500 ? 5_500 : 5_600) }));
    await vi.advanceTimersByTimeAsync(7_000);
    expect(at).toEqual([1_000, 3_000, 5_505, 6_505]);
  });

  it('a nudge brings a long pause back to the base pace', async () => {
    const { at, nudge } = run(() => ({ busy: false }));
    await vi.advanceTimersByTimeAsync(16_000); // rounds at 1, 3, 7, 15 s; the next would be at 23 s
    nudge();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(at).toEqual([1_000, 3_000, 7_000, 15_000, 17_000]);
    // The pause starts over: 2 s, then 4 s.
    await vi.advanceTimersByTimeAsync(6_000);
    expect(at).toEqual([1_000, 3_000, 7_000, 15_000, 17_000, 19_000, 23_000]);
  });

  it('stops', async () => {
    const { at } = run(() => ({ busy: true }));
    await vi.advanceTimersByTimeAsync(2_500);
    stop!();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(at).toEqual([1_000, 2_000]);
  });
});
