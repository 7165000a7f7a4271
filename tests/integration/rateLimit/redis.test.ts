/**
 * Rate limits on a real Redis (7.0 here). The Redis address comes from
 * TEST_REDIS_URL (default redis://127.0.0.1:6379), not REDIS_URL: the vitest
 * projects blank REDIS_URL. Everything is skipped, with a message, only when
 * that Redis does not answer PING.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { Ratelimit } from '@upstash/ratelimit';
import { createRateLimiter, MemoryRateLimiter, RATE_LIMITS, type RateLimiter, type RateLimitPolicy } from '@/server/rateLimit';
import { IoredisUpstashAdapter } from '@/server/rateLimit/ioredisAdapter';
import { hashIdentifier } from '@/server/rateLimit/remote';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const CLOSED_PORT_URL = 'redis://127.0.0.1:6390';
const REDIS_SERVER_BIN = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));

const uid = () => randomBytes(6).toString('hex');
const PREFIX = `rltest-${uid()}`;

async function redisVersion(url: string): Promise<string | null> {
  const c = new IORedis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => {});
  try {
    await c.connect();
    if ((await c.ping()) !== 'PONG') return null;
    return /redis_version:(\S+)/.exec(await c.info('server'))?.[1] ?? 'unknown';
  } catch {
    return null;
  } finally {
    c.disconnect();
  }
}

const version = await redisVersion(REDIS_URL);
if (!version) console.warn(`[rateLimit] skipping Redis tests: no PING answer from ${REDIS_URL} (set TEST_REDIS_URL)`);

/** Windows align to epoch multiples; keep a burst inside one window. */
async function awayFromWindowEdge(windowMs = 60_000, marginMs = 3_000) {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

const open: RateLimiter[] = [];
function limiter(url = REDIS_URL, logs: string[] = []): RateLimiter {
  const rl = createRateLimiter({ redisUrl: url, prefix: PREFIX, log: (m) => logs.push(m) });
  open.push(rl);
  return rl;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe(`rate limits on Redis ${version ?? '(none)'} at ${REDIS_URL}`, () => {
  const admin = new IORedis(REDIS_URL, { lazyConnect: true });

  beforeEach((ctx) => {
    if (!version) ctx.skip(`needs TEST_REDIS_URL: no Redis answered PING at ${REDIS_URL}`);
  });

  afterAll(async () => {
    if (!version) return;
    await Promise.all(open.map((rl) => rl.close()));
    if (admin.status === 'wait') await admin.connect();
    const keys: string[] = [];
    for await (const batch of admin.scanStream({ match: `${PREFIX}:*`, count: 500 })) keys.push(...(batch as string[]));
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  it("the library's unmodified script is what needs the adapter on this Redis", async () => {
    // Capture the script text @upstash/ratelimit sends (via a fake client), then run it as-is.
    let original = '';
    const capture = {
      evalsha: async () => Promise.reject(new Error('NOSCRIPT')),
      eval: async (script: string) => ((original = script), [0, 1]),
    };
    await new Ratelimit({ redis: capture as never, limiter: Ratelimit.slidingWindow(1, '60 s'), ephemeralCache: false, timeout: 0 }).limit('x');
    expect(original.split('\n')[0]).toBe('#!lua flags=allow-key-locking');
    const [major, minor] = version!.split('.').map(Number);
    const run = admin.eval(original, 2, `${PREFIX}:raw:a`, `${PREFIX}:raw:b`, 1, Date.now(), 60_000, 1);
    if (major < 7 || (major === 7 && minor < 2)) await expect(run).rejects.toThrow(/flag/i);
    else await run;
  });

  it('slidingWindow through the ioredis adapter: 120 allowed, the 121st denied', async () => {
    await awayFromWindowEdge();
    const logs: string[] = [];
    const rl = limiter(REDIS_URL, logs);
    const id = `key-${uid()}`;
    for (let i = 1; i <= 120; i++) {
      const r = await rl.limit(RATE_LIMITS.holds, id);
      expect(r).toMatchObject({ success: true, limit: 120, remaining: 120 - i, backend: 'redis' });
    }
    const denied = await rl.limit(RATE_LIMITS.holds, id);
    const window = Math.floor(Date.now() / 60_000);
    expect(denied).toEqual({ success: false, limit: 120, remaining: 0, reset: (window + 1) * 60_000, backend: 'redis' });
    expect(logs).toEqual([]);

    // Key layout: <prefix>:<policy>:<sha256(identifier)>:<window>; the raw identifier is not stored.
    const key = `${PREFIX}:holds:${hashIdentifier(id)}:${window}`;
    expect(await admin.get(key)).toBe('120');
    const ttl = await admin.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(121_000);
    expect(await admin.keys(`${PREFIX}:*${id}*`)).toEqual([]);
  });

  it('300 parallel calls -> exactly 120 admitted', async () => {
    await awayFromWindowEdge();
    const rl = limiter();
    const id = `par-${uid()}`;
    const results = await Promise.all(Array.from({ length: 300 }, () => rl.limit(RATE_LIMITS.confirm, id)));
    expect(results.filter((r) => r.success)).toHaveLength(120);
    expect(new Set(results.map((r) => r.backend))).toEqual(new Set(['redis']));
    expect(results.filter((r) => r.success).map((r) => r.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 120 }, (_, i) => i),
    );
  });

  it('two limiter instances (two server processes) share one count', async () => {
    await awayFromWindowEdge();
    const a = limiter();
    const b = limiter();
    const id = `shared-${uid()}`;
    for (let i = 0; i < 60; i++) {
      expect((await a.limit(RATE_LIMITS.bookings, id)).success).toBe(true);
      expect((await b.limit(RATE_LIMITS.bookings, id)).success).toBe(true);
    }
    expect(await a.limit(RATE_LIMITS.bookings, id)).toMatchObject({ success: false, backend: 'redis' });
    expect(await b.limit(RATE_LIMITS.bookings, id)).toMatchObject({ success: false, backend: 'redis' });
  });

  it('recovers from NOSCRIPT (SCRIPT FLUSH mid-burst) without falling back', async () => {
    await awayFromWindowEdge();
    const logs: string[] = [];
    const rl = limiter(REDIS_URL, logs);
    const id = `flush-${uid()}`;
    for (let i = 0; i < 50; i++) expect((await rl.limit(RATE_LIMITS.holds, id)).backend).toBe('redis');
    await admin.script('FLUSH');
    for (let i = 0; i < 70; i++) {
      expect(await rl.limit(RATE_LIMITS.holds, id)).toMatchObject({ success: true, backend: 'redis' });
    }
    expect(await rl.limit(RATE_LIMITS.holds, id)).toMatchObject({ success: false, backend: 'redis' });
    expect(logs).toEqual([]);
  });

  it('adapter: evalsha hits after the first eval, and again after SCRIPT FLUSH', async () => {
    await awayFromWindowEdge();
    const client = new IORedis(REDIS_URL);
    let evalshaHits = 0; // EVALSHA calls that Redis answered (i.e. the hash mapping worked)
    const counting = {
      evalsha: async (...a: Parameters<IORedis['evalsha']>) => {
        const r = await client.evalsha(...a);
        evalshaHits++;
        return r;
      },
      eval: (...a: Parameters<IORedis['eval']>) => client.eval(...a),
    };
    try {
      const adapter = new IoredisUpstashAdapter(counting as never);
      const rl = new Ratelimit({
        redis: adapter as never,
        limiter: Ratelimit.slidingWindow(5, '60 s'),
        prefix: `${PREFIX}:adapter`,
        ephemeralCache: false,
        analytics: false,
        timeout: 0,
        enableTelemetry: false,
      });
      const id = uid();
      for (let i = 0; i < 3; i++) expect((await rl.limit(id)).success).toBe(true);
      // (>= rather than exact: a parallel run of this file on the same Redis may flush scripts too.)
      expect(adapter.evalCount).toBeGreaterThanOrEqual(1);
      expect(evalshaHits).toBeGreaterThanOrEqual(1);
      const evalsBefore = adapter.evalCount;
      await admin.script('FLUSH');
      expect((await rl.limit(id)).success).toBe(true);
      expect(adapter.evalCount).toBeGreaterThan(evalsBefore);
      expect((await rl.limit(id)).success).toBe(true);
      expect(await rl.limit(id)).toMatchObject({ success: false, remaining: 0 });
    } finally {
      client.disconnect();
    }
  });

  it('same sliding-window arithmetic as the in-process limiter (controlled clock)', async () => {
    const policy: RateLimitPolicy = { name: 'parity', limit: 10, windowSeconds: 60 };
    const rl = limiter();
    const id = `parity-${uid()}`;
    let t = Math.floor(Date.now() / 60_000) * 60_000 + 50_000;
    const mem = new MemoryRateLimiter({ now: () => t });
    // A fixed, irregular timeline across four windows (previous-window weighting included).
    const steps = [0, 300, 700, 1_100, 2_000, 900, 4_000, 1_500, 3_100, 2_600, 800, 5_000, 7_300, 11_000, 6_200, 9_900, 2_200];
    let denied = 0;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (let i = 0; i < 120; i++) {
        t += steps[i % steps.length];
        vi.setSystemTime(t);
        const [r, m] = [await rl.limit(policy, id), await mem.limit(policy, id)];
        expect({ i, success: r.success, remaining: r.remaining, reset: r.reset, backend: r.backend }).toEqual({
          i,
          success: m.success,
          remaining: m.remaining,
          reset: m.reset,
          backend: 'redis',
        });
        if (!r.success) denied++;
      }
    } finally {
      vi.useRealTimers();
    }
    expect(denied).toBeGreaterThan(10); // the timeline does hit the limit, across several windows
    expect(denied).toBeLessThan(110);
  });

  it('the first requests right after the limiter is created use Redis, even when start-up keeps the event loop busy', async () => {
    // Concurrent first requests, as when a server starts under traffic.
    const logs: string[] = [];
    const first = limiter(REDIS_URL, logs);
    const rs = await Promise.all(Array.from({ length: 5 }, (_, i) => first.limit(RATE_LIMITS.global, `first-${uid()}-${i}`)));
    expect(rs.map((r) => r.backend)).toEqual(Array(5).fill('redis'));

    // Next loads a route's modules synchronously on the first request: the event loop is blocked
    // for longer than a connection attempt takes, and timers then run before the socket's events
    // are read. The first call must still wait for the connection, not fall back
    // ("Stream isn't writeable and enableOfflineQueue options is false").
    const busy = limiter(REDIS_URL, logs);
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      /* start-up work */
    }
    expect(await busy.limit(RATE_LIMITS.global, `busy-${uid()}`)).toMatchObject({ backend: 'redis', success: true });
    expect(await busy.ping()).toMatchObject({ ok: true, backend: 'redis' });
    expect(logs).toEqual([]);
  });

  it('Redis down (closed port): resolves quickly in-process, still enforces, warns once', async () => {
    const logs: string[] = [];
    const rl = limiter(CLOSED_PORT_URL, logs);
    const id = `down-${uid()}`;
    let admitted = 0;
    let slowest = 0;
    for (let i = 0; i < 125; i++) {
      const started = performance.now();
      const r = await rl.limit(RATE_LIMITS.holds, id);
      slowest = Math.max(slowest, performance.now() - started);
      expect(r.backend).toBe('memory-fallback');
      if (r.success) admitted++;
      else expect(r.remaining).toBe(0);
    }
    expect(admitted).toBe(120);
    expect(slowest).toBeLessThan(1_100); // the first call may wait for the first connection attempt
    const burst = await Promise.all(Array.from({ length: 300 }, () => rl.limit(RATE_LIMITS.holds, `${id}-par`)));
    expect(burst.filter((r) => r.success)).toHaveLength(120);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^rate limits: redis/);
    expect(await rl.ping()).toMatchObject({ ok: false, backend: 'redis' });
  });

  it('Redis that accepts connections but never answers: each call gives up within ~1 s', async () => {
    // Answers the connection handshake (CLIENT SETINFO, INFO), then goes silent.
    const sockets: net.Socket[] = [];
    const server = net.createServer((sock) => {
      sockets.push(sock);
      let hung = false;
      sock.on('data', (buf) => {
        for (const m of buf.toString('latin1').matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g)) {
          const cmd = m[1].toUpperCase();
          if (hung || (cmd !== 'CLIENT' && cmd !== 'INFO')) {
            hung = true;
            continue;
          }
          sock.write(cmd === 'INFO' ? '$0\r\n\r\n' : '+OK\r\n');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const logs: string[] = [];
      const rl = limiter(`redis://127.0.0.1:${port}`, logs);
      const started = performance.now();
      const results = [];
      for (let i = 0; i < 10; i++) results.push(await rl.limit(RATE_LIMITS.holds, `hung-${uid()}`));
      const elapsed = performance.now() - started;
      expect(results.every((r) => r.backend === 'memory-fallback' && r.success)).toBe(true);
      expect(elapsed).toBeLessThan(2_500);
      expect(logs).toHaveLength(1);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => server.close(r));
    }
  });

  it('reconnects and shares limits again when Redis comes back', async (ctx) => {
    if (!REDIS_SERVER_BIN) ctx.skip('needs redis-server (Debian redis-server) to start and stop its own Redis');
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const start = async (): Promise<ChildProcess> => {
      const child = spawn(REDIS_SERVER_BIN!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      for (let i = 0; i < 50 && !(await redisVersion(url)); i++) await new Promise((r) => setTimeout(r, 100));
      return child;
    };
    const stop = async (child: ChildProcess) => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    };

    let child = await start();
    try {
      const logs: string[] = [];
      const rl = limiter(url, logs);
      expect((await rl.limit(RATE_LIMITS.global, 'ip-1')).backend).toBe('redis');

      await stop(child);
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      expect((await rl.limit(RATE_LIMITS.global, 'ip-1')).backend).toBe('memory-fallback');
      expect(performance.now() - t0).toBeLessThan(1_100);

      child = await start();
      let backend = '';
      const deadline = Date.now() + 8_000;
      while (Date.now() < deadline && backend !== 'redis') {
        backend = (await rl.limit(RATE_LIMITS.global, 'ip-1')).backend;
        if (backend !== 'redis') await new Promise((r) => setTimeout(r, 200));
      }
      expect(backend).toBe('redis');
      expect(await rl.ping()).toEqual({ ok: true, backend: 'redis' });
      expect(logs[0]).toMatch(/^rate limits: redis/);
      expect(logs.at(-1)).toMatch(/reachable again/);
    } finally {
      if (child.exitCode === null) await stop(child);
    }
  });
});
