import { createHash } from 'node:crypto';
import { Ratelimit, type Duration } from '@upstash/ratelimit';
import { MemoryRateLimiter, windowMsOf } from './memory';
import type { Logger, RateLimiter, RateLimitPolicy, RateLimitResult } from './types';

/** What `new Ratelimit({ redis })` accepts. */
export type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]['redis'];

/** A shared store behind @upstash/ratelimit: ioredis (via the adapter) or @upstash/redis. */
export type RemoteStore = {
  backend: 'redis' | 'upstash';
  redis: RatelimitRedis;
  /** While a connection attempt is under way: settles when it ends (bounded); otherwise undefined (no wait). */
  ready?: () => Promise<void> | undefined;
  ping(): Promise<unknown>;
  close(): Promise<void>;
};

export type RemoteRateLimiterOptions = {
  prefix: string;
  log: Logger;
  /** Upper bound for one limit() round trip before falling back to memory. */
  callTimeoutMs?: number;
  /** At most one "unavailable" warning per this many ms. */
  warnIntervalMs?: number;
  /** After a failed call, decide in-process without trying the store for this long. */
  skipAfterFailureMs?: number;
};

/**
 * Shared limits via @upstash/ratelimit (slidingWindow, one cached Ratelimit per
 * policy). Any store error or slow answer -> this call is decided by an
 * in-process MemoryRateLimiter instead (backend 'memory-fallback'): limits
 * become per instance for a while, never unlimited, and limit() never rejects.
 */
export class RemoteRateLimiter implements RateLimiter {
  readonly backend: 'redis' | 'upstash';
  private readonly limiters = new Map<string, Ratelimit>();
  private readonly fallback = new MemoryRateLimiter();
  private readonly callTimeoutMs: number;
  private readonly warnIntervalMs: number;
  private readonly skipAfterFailureMs: number;
  /** Small circuit breaker: while down, only ~1 call per skipAfterFailureMs pays the failed round trip. */
  private skipStoreUntil = 0;
  private lastWarnAt = -Infinity;
  private suppressedWarnings = 0;
  /** A fallback warning was logged and no success since. */
  private degradedLogged = false;

  constructor(
    private readonly store: RemoteStore,
    private readonly opts: RemoteRateLimiterOptions,
  ) {
    this.backend = store.backend;
    this.callTimeoutMs = opts.callTimeoutMs ?? 1000;
    this.warnIntervalMs = opts.warnIntervalMs ?? 30_000;
    this.skipAfterFailureMs = opts.skipAfterFailureMs ?? 1000;
  }

  async limit(policy: RateLimitPolicy, identifier: string): Promise<RateLimitResult> {
    const windowMs = windowMsOf(policy); // throws on a malformed policy (a programming error)
    if (this.skipStoreUntil && Date.now() < this.skipStoreUntil) {
      return { ...this.fallback.check(policy, identifier), backend: 'memory-fallback' };
    }
    try {
      const ready = this.store.ready?.();
      if (ready) await ready;
      const r = await withTimeout(this.ratelimitFor(policy, windowMs).limit(hashIdentifier(identifier)), this.callTimeoutMs);
      // Only produced when the library's own `timeout` is on (it is off): it would mean "allowed, unchecked".
      if (r.reason === 'timeout') throw new Error('ratelimit timeout');
      this.skipStoreUntil = 0;
      if (this.degradedLogged) {
        this.degradedLogged = false;
        this.opts.log(`rate limits: ${this.backend} reachable again; shared limits restored`);
      }
      return { success: r.success, limit: r.limit, remaining: r.remaining, reset: r.reset, backend: this.backend };
    } catch (err) {
      this.skipStoreUntil = Date.now() + this.skipAfterFailureMs;
      this.warn(`rate limits: ${this.backend} unavailable (${errorMessage(err)}); using in-process limits (per instance) until it answers`);
      return { ...this.fallback.check(policy, identifier), backend: 'memory-fallback' };
    }
  }

  async ping(): Promise<{ ok: boolean; backend: string; error?: string }> {
    try {
      const ready = this.store.ready?.();
      if (ready) await ready;
      await withTimeout(this.store.ping(), this.callTimeoutMs);
      return { ok: true, backend: this.backend };
    } catch (err) {
      return { ok: false, backend: this.backend, error: errorMessage(err) };
    }
  }

  async close(): Promise<void> {
    this.limiters.clear();
    await this.fallback.close();
    await this.store.close();
  }

  /** Logs at most once per warnIntervalMs; also used for client 'error' events. */
  warn(msg: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < this.warnIntervalMs) {
      this.suppressedWarnings++;
      return;
    }
    const extra = this.suppressedWarnings ? ` (${this.suppressedWarnings} similar messages suppressed)` : '';
    this.lastWarnAt = now;
    this.suppressedWarnings = 0;
    this.degradedLogged = true;
    this.opts.log(msg + extra);
  }

  private ratelimitFor(policy: RateLimitPolicy, windowMs: number): Ratelimit {
    const cacheKey = `${policy.name}:${policy.limit}:${windowMs}`;
    let rl = this.limiters.get(cacheKey);
    if (!rl) {
      rl = new Ratelimit({
        redis: this.store.redis,
        limiter: Ratelimit.slidingWindow(policy.limit, `${windowMs} ms` as Duration),
        prefix: `${this.opts.prefix}:${policy.name}`,
        ephemeralCache: false, // it would deny locally after one denial; counts must come from Redis
        analytics: false,
        timeout: 0, // the library's timeout ALLOWS the request when it fires; we fall back instead
        enableTelemetry: false,
      });
      this.limiters.set(cacheKey, rl);
    }
    return rl;
  }
}

/**
 * Identifiers may be API keys or proposal tokens: only a digest goes into
 * Redis key names (128 bits of sha256, base64url).
 */
export function hashIdentifier(identifier: string): string {
  return createHash('sha256').update(identifier).digest('base64url').slice(0, 22);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  // race() subscribes to p, so a late rejection of p is handled, not "unhandled".
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
