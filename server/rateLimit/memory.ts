import type { RateLimiter, RateLimitPolicy, RateLimitResult } from './types';

/**
 * In-process sliding-window limiter with the same arithmetic as
 * @upstash/ratelimit's `slidingWindow` (single region):
 *
 *   windows are aligned to epoch multiples of the window size;
 *   used = floor((1 - (now % window) / window) * previousCount) + currentCount
 *   deny when used >= limit (nothing is counted), else count and
 *   remaining = limit - (currentCount + weightedPrevious);
 *   reset = end of the current window (epoch ms).
 *
 * Used as the backend when no Redis is configured, and as the per-call
 * fallback when Redis is unreachable. Counts live only in this process.
 */

type Entry = { window: number; current: number; previous: number; windowMs: number };

export type MemoryRateLimiterOptions = {
  /** Clock in epoch ms; injectable for tests. */
  now?: () => number;
  /** Upper bound on tracked (policy, identifier) pairs; oldest are dropped beyond it. */
  maxEntries?: number;
};

const SWEEP_EVERY_MS = 60_000;

export function windowMsOf(policy: RateLimitPolicy): number {
  if (!(Number.isInteger(policy.limit) && policy.limit > 0)) {
    throw new Error(`rate limit policy ${policy.name}: limit must be a positive integer`);
  }
  const ms = Math.round(policy.windowSeconds * 1000);
  if (!(ms >= 1)) throw new Error(`rate limit policy ${policy.name}: windowSeconds must be positive`);
  return ms;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly backend = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private lastSweep: number;

  constructor(opts: MemoryRateLimiterOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 200_000;
    this.lastSweep = this.now();
  }

  /** Synchronous check-and-count; `limit()` wraps it. */
  check(policy: RateLimitPolicy, identifier: string): Omit<RateLimitResult, 'backend'> {
    const windowMs = windowMsOf(policy);
    const now = this.now();
    this.maybeSweep(now);

    const window = Math.floor(now / windowMs);
    const reset = (window + 1) * windowMs;
    const key = `${policy.name}:${windowMs}:${identifier}`;
    let e = this.entries.get(key);
    if (!e) {
      e = { window, current: 0, previous: 0, windowMs };
      this.entries.set(key, e);
    } else if (e.window !== window) {
      // Roll forward: the old current window becomes "previous" only if adjacent.
      e.previous = e.window === window - 1 ? e.current : 0;
      e.current = 0;
      e.window = window;
    }

    const weightedPrevious = Math.floor((1 - (now % windowMs) / windowMs) * e.previous);
    if (weightedPrevious + e.current >= policy.limit) {
      return { success: false, limit: policy.limit, remaining: 0, reset };
    }
    e.current += 1;
    return { success: true, limit: policy.limit, remaining: policy.limit - (e.current + weightedPrevious), reset };
  }

  async limit(policy: RateLimitPolicy, identifier: string): Promise<RateLimitResult> {
    return { ...this.check(policy, identifier), backend: 'memory' };
  }

  async ping() {
    return { ok: true, backend: 'memory' };
  }

  async close() {
    this.entries.clear();
  }

  /** Number of tracked (policy, identifier) pairs; for tests. */
  get size(): number {
    return this.entries.size;
  }

  private maybeSweep(now: number) {
    const overCap = this.entries.size > this.maxEntries;
    if (!overCap && now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    // An entry whose current window is older than the previous window counts for nothing.
    for (const [k, e] of this.entries) {
      if (e.window < Math.floor(now / e.windowMs) - 1) this.entries.delete(k);
    }
    // Still too many (e.g. a flood of distinct identifiers): drop the
    // oldest-inserted down to 90% so the next sweep is not on the next call.
    if (this.entries.size > this.maxEntries) {
      let excess = this.entries.size - Math.floor(this.maxEntries * 0.9);
      for (const k of this.entries.keys()) {
        if (excess-- <= 0) break;
        this.entries.delete(k);
      }
    }
  }
}
