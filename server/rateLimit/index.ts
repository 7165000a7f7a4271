/**
 * Rate limiting (docs/api.md "5. Rate limits").
 *
 * createRateLimiter picks a backend:
 *   redisUrl                    -> ioredis + IoredisUpstashAdapter + @upstash/ratelimit
 *   upstashUrl + upstashToken   -> @upstash/redis (REST) + @upstash/ratelimit
 *   neither                     -> MemoryRateLimiter (per process)
 * Shared backends never throw from limit(): on error or a slow answer the call
 * is decided by an in-process limiter (backend 'memory-fallback').
 */
import { Redis as IORedis } from 'ioredis';
import { Redis as UpstashRedis } from '@upstash/redis';
import { getConfig } from '../config';
import { metrics } from '../observability/metrics';
import { IoredisUpstashAdapter } from './ioredisAdapter';
import { MemoryRateLimiter } from './memory';
import { RemoteRateLimiter, type RatelimitRedis, type RemoteStore } from './remote';
import type { Logger, RateLimiter, RateLimitPolicy, RateLimitResult } from './types';

export type { RateLimiter, RateLimitPolicy, RateLimitResult } from './types';
export { MemoryRateLimiter } from './memory';

export const RATE_LIMITS: {
  availabilitySearch: RateLimitPolicy;
  holds: RateLimitPolicy;
  bookings: RateLimitPolicy;
  confirm: RateLimitPolicy;
  global: RateLimitPolicy;
  publicProposalSubmit: RateLimitPolicy;
  publicProposalToken: RateLimitPolicy;
  signInIp: RateLimitPolicy;
  signInAccount: RateLimitPolicy;
  signInLinkIp: RateLimitPolicy;
  signInLink: RateLimitPolicy;
} = Object.freeze({
  /** POST /v1/availability/search, per API key. */
  availabilitySearch: Object.freeze({ name: 'availabilitySearch', limit: 300, windowSeconds: 60 }),
  /** POST /v1/holds, per API key. */
  holds: Object.freeze({ name: 'holds', limit: 120, windowSeconds: 60 }),
  /** POST /v1/bookings, per API key. */
  bookings: Object.freeze({ name: 'bookings', limit: 120, windowSeconds: 60 }),
  /** POST /v1/bookings/{hold_id}/confirm, per API key. */
  confirm: Object.freeze({ name: 'confirm', limit: 120, windowSeconds: 60 }),
  /** Every request no per-key policy covers (404 and 405 included), per client IP. */
  global: Object.freeze({ name: 'global', limit: 600, windowSeconds: 60 }),
  /** Public proposal submissions, per client IP and resolved link (on top of `global`). */
  publicProposalSubmit: Object.freeze({ name: 'publicProposalSubmit', limit: 20, windowSeconds: 600 }),
  /** Public proposal status and withdraw, per existing proposal; contact verification, per existing verification (on top of `global`). */
  publicProposalToken: Object.freeze({ name: 'publicProposalToken', limit: 120, windowSeconds: 60 }),
  /** Dashboard password attempts (POST /api/auth/callback/credentials), per client IP. */
  signInIp: Object.freeze({ name: 'signInIp', limit: 30, windowSeconds: 900 }),
  /** Dashboard password attempts (POST /api/auth/callback/credentials), per account (the email as typed, normalised). */
  signInAccount: Object.freeze({ name: 'signInAccount', limit: 10, windowSeconds: 900 }),
  /** Emailed sign-in link requests (POST /api/auth/signin/email), per client IP. */
  signInLinkIp: Object.freeze({ name: 'signInLinkIp', limit: 20, windowSeconds: 900 }),
  /** Emailed sign-in link requests (POST /api/auth/signin/email), per address (the email as typed, normalised), owner or not. */
  signInLink: Object.freeze({ name: 'signInLink', limit: 5, windowSeconds: 900 }),
});

export type CreateRateLimiterOptions = {
  redisUrl?: string;
  upstashUrl?: string;
  upstashToken?: string;
  /** Key prefix; keys look like `<prefix>:<policy name>:<sha256 of identifier>:<window number>`. */
  prefix?: string;
  log?: (msg: string) => void;
};

/** ioredis: no queue (a call waits only for a connection attempt under way, see createIoredisLimiter), keep reconnecting in the background. */
const IOREDIS_OPTIONS = {
  commandTimeout: 500, // a hung Redis costs a request at most ~0.5 s (x2 on the NOSCRIPT path; capped at 1 s below)
  connectTimeout: 1000,
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false, // between connection attempts (Redis down), commands fail at once -> memory fallback
  retryStrategy: (times: number) => Math.min(100 * times, 2000), // never give up reconnecting
} as const;

/** Longest a limit() call waits for a connection attempt in progress (see createIoredisLimiter). */
const READY_WAIT_MS = 5000;
/** ioredis events that end a connection attempt, whichever way. */
const ATTEMPT_END_EVENTS = ['ready', 'error', 'close', 'end'] as const;

export function createRateLimiter(opts: CreateRateLimiterOptions): RateLimiter {
  const log: Logger = opts.log ?? ((msg) => console.warn(msg));
  const prefix = opts.prefix || 'ratelimit';
  if (opts.redisUrl) return createIoredisLimiter(opts.redisUrl, prefix, log);
  if (opts.upstashUrl && opts.upstashToken) {
    const redis = new UpstashRedis({
      url: opts.upstashUrl,
      token: opts.upstashToken,
      retry: { retries: 1, backoff: () => 50 },
      signal: () => AbortSignal.timeout(800), // a function: an aborted fetch then throws (a plain signal fakes a result)
      enableTelemetry: false,
    });
    const store: RemoteStore = {
      backend: 'upstash',
      redis,
      ping: () => redis.ping(),
      close: async () => {},
    };
    return new RemoteRateLimiter(store, { prefix, log });
  }
  return new MemoryRateLimiter();
}

function createIoredisLimiter(url: string, prefix: string, log: Logger): RateLimiter {
  const client = new IORedis(url, { ...IOREDIS_OPTIONS });
  const adapter = new IoredisUpstashAdapter(client);

  // A call made while a connection attempt is under way (at start, or a reconnect) waits for its
  // outcome instead of falling back: with the offline queue off, a command sent before 'ready'
  // fails at once ("Stream isn't writeable"). The wait ends on the attempt's own events (ioredis
  // ends an attempt with 'ready' or an error within connectTimeout), not on a timer of ours that a
  // busy start-up (the event loop blocked while modules load) would fire before the socket's
  // events are read; READY_WAIT_MS only bounds an attempt that never ends. Between attempts
  // (Redis known down) nothing waits.
  let attempt: Promise<void> | undefined;
  const connectionAttempt = (): Promise<void> | undefined => {
    if (client.status !== 'connecting' && client.status !== 'connect') return undefined;
    attempt ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        for (const event of ATTEMPT_END_EVENTS) client.off(event, done);
        attempt = undefined;
        resolve();
      };
      const timer = setTimeout(done, READY_WAIT_MS);
      timer.unref?.();
      for (const event of ATTEMPT_END_EVENTS) client.once(event, done);
    });
    return attempt;
  };

  const store: RemoteStore = {
    backend: 'redis',
    redis: adapter as unknown as RatelimitRedis,
    ready: connectionAttempt,
    ping: async () => {
      if (client.status !== 'ready') throw new Error(`not connected (ioredis status ${client.status})`);
      return client.ping();
    },
    close: async () => {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
  const limiter = new RemoteRateLimiter(store, { prefix, log });
  // Connection errors repeat on every reconnect attempt: throttle them with the fallback warnings.
  client.on('error', (err: Error) =>
    limiter.warn(`rate limits: redis connection error (${err.message}); deciding limits in-process (per instance) until it answers`),
  );
  return limiter;
}

const SINGLETON = Symbol.for('agent-scheduler.rateLimiter');
type GlobalWithLimiter = typeof globalThis & { [SINGLETON]?: RateLimiter };

/**
 * Process-wide limiter from the environment (REDIS_URL, else
 * UPSTASH_REDIS_REST_URL + UPSTASH_REDIS_REST_TOKEN, else in-process). Kept on
 * globalThis so Next.js dev hot reloads reuse it instead of opening more connections.
 */
export function getRateLimiter(): RateLimiter {
  const g = globalThis as GlobalWithLimiter;
  const existing = g[SINGLETON];
  if (existing) return existing;

  const cfg = getConfig();
  const limiter = createRateLimiter({ redisUrl: cfg.redisUrl, upstashUrl: cfg.upstashUrl, upstashToken: cfg.upstashToken });
  if (limiter.backend === 'memory') {
    console.warn('rate limits: in-process (per instance); set REDIS_URL to share them across instances');
  }
  // Every refusal is counted by policy (docs/operations.md "Metrics": scheduler_rate_limit_refusals_total).
  const limit = limiter.limit.bind(limiter);
  limiter.limit = async (policy, identifier) => {
    const r = await limit(policy, identifier);
    if (!r.success) countRefusal(policy.name);
    return r;
  };
  // Closing the singleton forgets it, so a later getRateLimiter() builds a fresh one.
  const close = limiter.close.bind(limiter);
  limiter.close = async () => {
    if (g[SINGLETON] === limiter) delete g[SINGLETON];
    await close();
  };
  g[SINGLETON] = limiter;
  return limiter;
}

const refusals = new Map<string, { inc(): void }>();
function countRefusal(policy: string): void {
  let c = refusals.get(policy);
  if (!c) refusals.set(policy, (c = metrics().rateLimitRefusals.labels({ policy })));
  c.inc();
}

/**
 * Response headers for a limit decision. `RateLimit-Reset` and `Retry-After`
 * are whole seconds until `r.reset`, rounded up; Retry-After (only on a
 * denial) is at least 1.
 */
export function rateLimitHeaders(r: RateLimitResult, now: number): Record<string, string> {
  const ms = r.reset - now;
  const seconds = Number.isFinite(ms) ? Math.max(0, Math.ceil(ms / 1000)) : 0;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(r.limit),
    'RateLimit-Remaining': String(Math.max(0, r.remaining)),
    'RateLimit-Reset': String(seconds),
  };
  if (!r.success) headers['Retry-After'] = String(Math.max(1, seconds));
  return headers;
}
