import { describe, expect, it } from 'vitest';
import { codedError, createSchedulerClient, retryAfterMs, retryingFetch } from '@/clients/typescript';

/** A fake fetch answering the given statuses in turn, recording each request. */
function fakeFetch(answers: (number | Error | { status: number; headers: Record<string, string> })[]) {
  const seen: { method: string; url: string; idem: string | null; body: string }[] = [];
  const fetch = async (req: Request) => {
    seen.push({ method: req.method, url: req.url, idem: req.headers.get('idempotency-key'), body: await req.text() });
    const a = answers[Math.min(seen.length - 1, answers.length - 1)];
    if (a instanceof Error) throw a;
    const { status, headers } = typeof a === 'number' ? { status: a, headers: {} } : a;
    return new Response(status === 204 ? null : JSON.stringify(status < 400 ? { ok: true } : { error: { code: 'x', message: 'x' } }), { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { fetch, seen };
}

function recordSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const post = () => new Request('http://api.test/v1/bookings', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });

describe('retryingFetch', () => {
  it('retries a 429 after Retry-After seconds, reusing one Idempotency-Key and the body', async () => {
    const { fetch, seen } = fakeFetch([{ status: 429, headers: { 'retry-after': '7' } }, 201]);
    const { waits, sleep } = recordSleep();
    const res = await retryingFetch(fetch, { sleep, newKey: () => 'key-1' })(post());
    expect(res.status).toBe(201);
    expect(waits).toEqual([7000]);
    expect(seen.map((s) => s.idem)).toEqual(['key-1', 'key-1']);
    expect(seen.map((s) => s.body)).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('backs off exponentially on 5xx and gives up after maxRetries with the last answer', async () => {
    const { fetch, seen } = fakeFetch([503]);
    const { waits, sleep } = recordSleep();
    const res = await retryingFetch(fetch, { sleep, maxRetries: 3, baseDelayMs: 100, random: () => 0.999999 })(post());
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(4);
    expect(waits.map(Math.round)).toEqual([100, 200, 400]);
    expect(new Set(seen.map((s) => s.idem)).size).toBe(1);
  });

  it('applies jitter (50 to 100 % of the doubled base) and caps each wait', async () => {
    const { fetch } = fakeFetch([500, 502, { status: 429, headers: { 'retry-after': '120' } }, 200]);
    const { waits, sleep } = recordSleep();
    await retryingFetch(fetch, { sleep, baseDelayMs: 1000, maxDelayMs: 10_000, random: () => 0 })(post());
    expect(waits).toEqual([500, 1000, 10_000]);
  });

  it('does not retry 4xx other than 429, nor 501', async () => {
    for (const status of [400, 409, 501]) {
      const { fetch, seen } = fakeFetch([status, 200]);
      const res = await retryingFetch(fetch, { sleep: async () => {} })(post());
      expect(res.status).toBe(status);
      expect(seen).toHaveLength(1);
    }
  });

  it('retries network errors, then rethrows', async () => {
    const ok = fakeFetch([new TypeError('fetch failed'), 200]);
    expect((await retryingFetch(ok.fetch, { sleep: async () => {} })(post())).status).toBe(200);
    const down = fakeFetch([new TypeError('fetch failed')]);
    await expect(retryingFetch(down.fetch, { sleep: async () => {}, maxRetries: 2 })(post())).rejects.toThrow('fetch failed');
    expect(down.seen).toHaveLength(3);
  });

  it('keeps a caller-given Idempotency-Key, gives each logical call its own, and none to GETs', async () => {
    const { fetch, seen } = fakeFetch([200]);
    let n = 0;
    const f = retryingFetch(fetch, { newKey: () => `gen-${++n}` });
    await f(new Request('http://api.test/v1/holds', { method: 'POST', body: '{}', headers: { 'idempotency-key': 'mine' } }));
    await f(post());
    await f(post());
    await f(new Request('http://api.test/v1/notifications'));
    expect(seen.map((s) => s.idem)).toEqual(['mine', 'gen-1', 'gen-2', null]);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});

describe('createSchedulerClient', () => {
  it('sends the bearer key, typed paths and bodies, and retries through openapi-fetch', async () => {
    const { fetch, seen } = fakeFetch([{ status: 429, headers: { 'retry-after': '1' } }, 201]);
    const { waits, sleep } = recordSleep();
    const client = createSchedulerClient({ baseUrl: 'http://api.test/', apiKey: 'ak_test', fetch: async (req) => {
      expect(req.headers.get('authorization')).toBe('Bearer ak_test');
      return fetch(req);
    }, retry: { sleep } });
    const res = await client.POST('/v1/bookings', {
      body: { owner_email: 'o@example.com', meeting_class: 'internal', start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' },
    });
    expect(res.response.status).toBe(201);
    expect(waits).toEqual([1000]);
    expect(seen[0].url).toBe('http://api.test/v1/bookings');
    expect(seen[0].idem).toBeTruthy();
    expect(seen[1].idem).toBe(seen[0].idem);
  });
});

describe('codedError', () => {
  it('narrows a refusal on its code to that code\'s own body (alternatives only where ARBITRATION_REJECTED can be)', async () => {
    const body = { error: { code: 'ARBITRATION_REJECTED', message: 'x', reason: 'COUNTER_PROPOSED' }, pending_notifications: [], alternatives: [{ start: '2030-01-07T09:30:00.000Z', end: '2030-01-07T10:00:00.000Z', reason_code: 'capacity_conflict' }] };
    const client = createSchedulerClient({ baseUrl: 'http://api.test', apiKey: 'ak_test', fetch: async () => new Response(JSON.stringify(body), { status: 409, headers: { 'content-type': 'application/json' } }), retry: { maxRetries: 0 } });
    const { error } = await client.POST('/v1/bookings', { body: { owner_email: 'o@example.com', meeting_class: 'internal', start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' } });
    const e = codedError(error);
    let alternatives: number | undefined;
    switch (e?.code) {
      case 'ARBITRATION_REJECTED':
        alternatives = e.body.alternatives?.length; // reachable without `'alternatives' in e`
        break;
      // @ts-expect-error a code POST /v1/bookings never answers is not a case
      case 'HOLD_NOT_FOUND':
        break;
      case 'INVALID_MEETING_CLASS':
        // @ts-expect-error alternatives are not part of this code's body
        void e.body.alternatives;
        break;
    }
    expect(alternatives).toBe(1);
    expect(codedError(undefined)).toBeUndefined();
  });
});
