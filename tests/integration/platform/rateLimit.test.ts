import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@/server/http/handler';
import { defineOperation } from '@/server/http/operation';
import { getRateLimiter } from '@/server/rateLimit';
import { api, expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';

/**
 * The wrapper enforces docs/api.md "5. Rate limits" through the configured backend (the
 * in-process limiter on the PGlite run; Redis on the PostgreSQL run in CI).
 * A minimal operation with the holds-class policy isolates the wrapper's part.
 */
const holdsClass = routes({
  POST: defineOperation({
    operationId: 'rateLimitProbe',
    method: 'POST',
    path: '/v1/probe',
    summary: 'probe',
    tags: [],
    auth: 'api_key',
    rateLimit: { policy: 'holds', by: 'key' },
    success: { status: 200, description: 'ok' },
    errors: [],
    handler: async () => ({ body: { ok: true } }),
  }),
});

function probe(key: string) {
  const req = new Request('http://scheduler.test/v1/probe', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '198.51.100.7' } });
  return holdsClass.POST(req, { params: Promise.resolve({}) });
}

/** Windows align to multiples of 60 s: start a burst with room left in the current one. */
async function awayFromWindowEdge(windowMs = 60_000, marginMs = 8_000) {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

let a: TestCustomer;
let b: TestCustomer;
beforeAll(async () => {
  a = await newCustomer();
  b = await newCustomer();
});

describe(`rate limits through the wrapper (${getRateLimiter().backend} backend)`, () => {
  it('admits 120 holds-class requests per key per minute; the 121st gets 429 with Retry-After', async () => {
    await awayFromWindowEdge();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 120; i++) {
      last = await probe(a.key);
      statuses.push(last.status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(last!.headers.get('ratelimit-limit')).toBe('120');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const denied = await probe(a.key);
    expect(denied.status).toBe(429);
    const body = await denied.json();
    expect(body.error.code).toBe('rate_limited');
    expect(body.pending_notifications).toEqual([]);
    const retryAfter = Number(denied.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // another key has its own budget
    expect((await probe(b.key)).status).toBe(200);
  });

  it('applies the global per-IP limit (600/min) to other endpoints and to failed authentication', async () => {
    // 601 requests inside one fixed 60-s window: sent 25 at a time, and tried again from a new
    // address when a slow host let the run cross into the next window (which would split the count).
    const windowOf = (t: number) => Math.floor(t / 60_000);
    let res: Awaited<ReturnType<typeof api>> | undefined;
    for (let attempt = 0; attempt < 3 && !res; attempt++) {
      await awayFromWindowEdge();
      const started = Date.now();
      const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
      let ok = 0;
      for (let i = 0; i < 600; i += 25) {
        const batch = await Promise.all(Array.from({ length: 25 }, (_, j) => api('GET', '/v1/meeting-classes', { key: (i + j) % 2 ? a.key : 'ak_wrong', ip })));
        ok += batch.filter((r) => r.status !== 429).length;
      }
      const last = await api('GET', '/v1/meeting-classes', { key: a.key, ip });
      if (windowOf(Date.now()) !== windowOf(started)) continue;
      expect(ok).toBe(600);
      res = last;
    }
    expect(res, 'three attempts each crossed a window boundary').toBeDefined();
    expectEnvelope(res!, 429, 'rate_limited');
    expect(Number(res!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // another address is unaffected
    expect((await api('GET', '/v1/meeting-classes', { key: a.key, ip: '192.0.2.254' })).status).toBe(200);
  });
});
