import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Ratelimit } from '@upstash/ratelimit';
import { createRateLimiter, getRateLimiter, RATE_LIMITS, type RateLimiter } from '@/server/rateLimit';
import { IoredisUpstashAdapter, stripKeyLockingFlag } from '@/server/rateLimit/ioredisAdapter';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

describe('RATE_LIMITS', () => {
  it('matches the documented limits (docs/architecture.md step 3, docs/operations.md)', () => {
    expect(RATE_LIMITS).toEqual({
      availabilitySearch: { name: 'availabilitySearch', limit: 300, windowSeconds: 60 },
      holds: { name: 'holds', limit: 120, windowSeconds: 60 },
      bookings: { name: 'bookings', limit: 120, windowSeconds: 60 },
      confirm: { name: 'confirm', limit: 120, windowSeconds: 60 },
      global: { name: 'global', limit: 600, windowSeconds: 60 },
      publicProposalSubmit: { name: 'publicProposalSubmit', limit: 20, windowSeconds: 600 },
      publicProposalToken: { name: 'publicProposalToken', limit: 120, windowSeconds: 60 },
      // owner sign-in throttle (docs/operations.md "Sign-in throttle")
      signInIp: { name: 'signInIp', limit: 30, windowSeconds: 900 },
      signInAccount: { name: 'signInAccount', limit: 10, windowSeconds: 900 },
      // emailed sign-in links (docs/reliability.md "Limits on work per request")
      signInLinkIp: { name: 'signInLinkIp', limit: 20, windowSeconds: 900 },
      signInLink: { name: 'signInLink', limit: 5, windowSeconds: 900 },
    });
    expect(Object.isFrozen(RATE_LIMITS.holds)).toBe(true);
  });
});

describe('createRateLimiter / getRateLimiter', () => {
  const singleton = () =>
    (globalThis as Record<symbol, RateLimiter | undefined>)[Symbol.for('agent-scheduler.rateLimiter')];

  afterEach(async () => {
    await singleton()?.close();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('uses the in-process limiter when nothing is configured', () => {
    expect(createRateLimiter({}).backend).toBe('memory');
    expect(createRateLimiter({ upstashUrl: 'https://x.example' }).backend).toBe('memory'); // token missing
  });

  it('getRateLimiter: one instance on globalThis, logs the per-instance notice once', async () => {
    vi.stubEnv('REDIS_URL', '');
    vi.stubEnv('UPSTASH_REDIS_REST_URL', '');
    vi.stubEnv('UPSTASH_REDIS_REST_TOKEN', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await singleton()?.close(); // start from a clean slate
    const a = getRateLimiter();
    const b = getRateLimiter();
    expect(a).toBe(b);
    expect(a.backend).toBe('memory');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith('rate limits: in-process (per instance); set REDIS_URL to share them across instances');
    expect(singleton()).toBe(a);
    await a.close();
    expect(singleton()).toBeUndefined(); // a closed singleton is forgotten
    expect(getRateLimiter()).not.toBe(a);
  });

  it('upstash REST backend that does not answer: falls back in-process, warns once, never throws', async () => {
    const logs: string[] = [];
    // A closed local port: fetch fails at once.
    const rl = createRateLimiter({ upstashUrl: 'http://127.0.0.1:9', upstashToken: 't', log: (m) => logs.push(m) });
    expect(rl.backend).toBe('upstash');
    const started = Date.now();
    let admitted = 0;
    for (let i = 0; i < 25; i++) {
      const r = await rl.limit(RATE_LIMITS.publicProposalSubmit, 'ip|link');
      expect(r.backend).toBe('memory-fallback');
      if (r.success) admitted++;
    }
    expect(admitted).toBe(20);
    expect(Date.now() - started).toBeLessThan(25 * 1000);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^rate limits: upstash unavailable/);
    expect(await rl.ping()).toMatchObject({ ok: false, backend: 'upstash' });
    await rl.close();
  });
});

describe('IoredisUpstashAdapter', () => {
  it('strips only the allow-key-locking flag', () => {
    expect(stripKeyLockingFlag('#!lua flags=allow-key-locking\n  return 1\n')).toBe('  return 1\n');
    expect(stripKeyLockingFlag('#!lua flags=no-writes,allow-key-locking\nreturn 1')).toBe('#!lua flags=no-writes\nreturn 1');
    expect(stripKeyLockingFlag('return 1')).toBe('return 1');
  });

  it('drives @upstash/ratelimit: NOSCRIPT -> eval of the rewritten script, then evalsha of its hash', async () => {
    const calls: { cmd: string; first: string; numKeys: number; rest: unknown[] }[] = [];
    let counter = 0;
    const fakeIoredis = {
      eval: async (script: string, numKeys: number, ...rest: unknown[]) => {
        calls.push({ cmd: 'eval', first: script, numKeys, rest });
        return [120 - ++counter, 120];
      },
      evalsha: async (sha: string, numKeys: number, ...rest: unknown[]) => {
        calls.push({ cmd: 'evalsha', first: sha, numKeys, rest });
        return [120 - ++counter, 120];
      },
    };
    const adapter = new IoredisUpstashAdapter(fakeIoredis as never);
    const rl = new Ratelimit({
      redis: adapter as never,
      limiter: Ratelimit.slidingWindow(120, '60 s'),
      prefix: 'p:holds',
      ephemeralCache: false,
      analytics: false,
      timeout: 0,
      enableTelemetry: false,
    });

    expect(await rl.limit('id')).toMatchObject({ success: true, remaining: 119, limit: 120 });
    expect(calls).toHaveLength(1);
    expect(calls[0].cmd).toBe('eval');
    const script = calls[0].first;
    expect(script.startsWith('#!lua')).toBe(false);
    expect(script).toContain('requestsInPreviousWindow');
    expect(calls[0].numKeys).toBe(2);
    const [currentKey, previousKey, limit, , windowMs, incrementBy] = calls[0].rest;
    expect(currentKey).toMatch(/^p:holds:id:\d+$/);
    expect(previousKey).toMatch(/^p:holds:id:\d+$/);
    expect([limit, windowMs, incrementBy]).toEqual([120, 60_000, 1]);

    expect(await rl.limit('id')).toMatchObject({ success: true, remaining: 118 });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ cmd: 'evalsha', first: sha1(script), numKeys: 2 });
    expect(adapter.evalCount).toBe(1);
  });
});
