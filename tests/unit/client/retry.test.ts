import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSchedulerClient, retryAfterMs, retryingFetch, type OperationError } from '@/clients/typescript/src/index';

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

describe('errors narrow on their code', () => {
  const bookingBody = { owner_email: 'o@example.com', meeting_class: 'internal', start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' };
  const answering = (status: number, body: unknown) => createSchedulerClient({ baseUrl: 'http://api.test', apiKey: 'ak_test', fetch: async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }), retry: { maxRetries: 0 } });

  it('a switch on error.code reaches alternatives, conflicts and next_available of ARBITRATION_REJECTED, and only there', async () => {
    const body = { error: { code: 'ARBITRATION_REJECTED', message: 'x', reason: 'COUNTER_PROPOSED' }, pending_notifications: [], alternatives: [{ start: '2030-01-07T09:30:00.000Z', end: '2030-01-07T10:00:00.000Z', reason_code: 'capacity_conflict' }], conflicts: [], next_available: null };
    const { error } = await answering(409, body).POST('/v1/bookings', { body: bookingBody });
    expect(error).toEqual({ ...body, code: 'ARBITRATION_REJECTED' }); // the body as sent, its code repeated at the top
    let seen = '';
    if (error) {
      // @ts-expect-error alternatives belong to one code's body: not reachable before narrowing
      void error.alternatives;
      switch (error.code) {
        case 'ARBITRATION_REJECTED':
          seen = `${error.alternatives?.length} ${error.conflicts?.length} ${error.next_available} ${error.error.reason}`; // no `in` checks
          break;
        // @ts-expect-error a code POST /v1/bookings never answers is not a case
        case 'HOLD_NOT_FOUND':
          break;
        case 'INVALID_MEETING_CLASS':
          // @ts-expect-error alternatives are not part of this code's body
          void error.alternatives;
          seen = String(error.valid_meeting_classes);
          break;
      }
    }
    expect(seen).toBe('1 0 null COUNTER_PROPOSED');
  });

  it('NO_SLOTS_AVAILABLE of a search carries next_available; OperationError names one operation\'s union', async () => {
    const body = { error: { code: 'NO_SLOTS_AVAILABLE', message: 'x' }, pending_notifications: [], next_available: { start: '2030-01-08T09:00:00.000Z', end: '2030-01-08T09:30:00.000Z' } };
    const { error } = await answering(409, body).POST('/v1/availability/search', { body: { owner_email: 'o@example.com', meeting_class: 'internal', duration_minutes: 30, window: { start: '2030-01-07T09:00:00Z', end: '2030-01-07T12:00:00Z' } } });
    const e: OperationError<'/v1/availability/search', 'post'> | undefined = error;
    expect(e?.code === 'NO_SLOTS_AVAILABLE' ? e.next_available?.start : null).toBe('2030-01-08T09:00:00.000Z');
    const codes: OperationError<'/v1/bookings', 'post'>['code'][] = ['ARBITRATION_REJECTED', 'INVALID_MEETING_CLASS'];
    // @ts-expect-error not a code of POST /v1/bookings
    codes.push('HOLD_NOT_FOUND');
  });

  it('leaves a body that is not an error envelope as it is', async () => {
    const { error } = await answering(502, ['not', 'an', 'envelope']).GET('/v1/meeting-classes');
    expect(error).toEqual(['not', 'an', 'envelope']);
  });
});

describe('against a loopback HTTP server', () => {
  type Seen = { method: string; url: string; idem: string | undefined; auth: string | undefined; trace: string | undefined; at: number };
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  /** Serves the given answers in turn ('drop' closes the connection without answering). */
  async function serve(answers: ({ status: number; headers?: Record<string, string> } | 'drop')[]) {
    const seen: Seen[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, idem: req.headers['idempotency-key'] as string | undefined, auth: req.headers.authorization, trace: req.headers['x-trace'] as string | undefined, at: Date.now() });
      const a = answers[Math.min(seen.length - 1, answers.length - 1)];
      req.resume();
      if (a === 'drop') return req.socket.destroy();
      const ok = a.status < 400;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(ok ? { id: 'bkg_1' } : { error: { code: a.status === 429 ? 'rate_limited' : 'internal', message: 'x' }, pending_notifications: [] }));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { seen, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  const booking = { owner_email: 'o@example.com', meeting_class: 'internal', start: '2030-01-07T09:00:00Z', end: '2030-01-07T09:30:00Z' };

  it('retries a dropped connection and 5xx with backoff, one Idempotency-Key throughout, with the headers option on every try', async () => {
    const { seen, base } = await serve(['drop', { status: 503 }, { status: 500 }, { status: 201 }]);
    const api = createSchedulerClient({ baseUrl: base, apiKey: 'ak_loop', headers: { 'x-trace': 't-1' }, retry: { baseDelayMs: 20, random: () => 0.999 } });
    const { data, response } = await api.POST('/v1/bookings', { body: booking });
    expect(response.status).toBe(201);
    expect(data).toEqual({ id: 'bkg_1' });
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((s) => s.idem)).size).toBe(1);
    expect(seen[0].idem).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.every((s) => s.auth === 'Bearer ak_loop' && s.trace === 't-1' && s.method === 'POST' && s.url === '/v1/bookings')).toBe(true);
    // waits of about 20, 40 and 80 ms (timers may run late on a loaded machine, never early)
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(15);
    expect(seen[3].at - seen[2].at).toBeGreaterThanOrEqual(60);
  });

  it('is bounded: after maxRetries the last 5xx is the answer, its code on top', async () => {
    const { seen, base } = await serve([{ status: 502 }]);
    const api = createSchedulerClient({ baseUrl: base, apiKey: 'ak_loop', retry: { maxRetries: 2, baseDelayMs: 5 } });
    const { error, response } = await api.POST('/v1/bookings', { body: booking });
    expect(response.status).toBe(502);
    expect(error?.code).toBe('internal');
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.idem)).size).toBe(1);
  });

  it('waits Retry-After on 429 (capped by maxDelayMs) before trying again', async () => {
    const { seen, base } = await serve([{ status: 429, headers: { 'retry-after': '1' } }, { status: 201 }]);
    const api = createSchedulerClient({ baseUrl: base, apiKey: 'ak_loop' });
    const started = Date.now();
    const { response } = await api.POST('/v1/bookings', { body: booking, headers: { 'idempotency-key': 'mine-1' } });
    expect(response.status).toBe(201);
    expect(seen.map((s) => s.idem)).toEqual(['mine-1', 'mine-1']);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(20_000);

    const capped = await serve([{ status: 429, headers: { 'retry-after': '3600' } }, { status: 200 }]);
    const quick = createSchedulerClient({ baseUrl: capped.base, apiKey: 'ak_loop', retry: { maxDelayMs: 50 } });
    const t0 = Date.now();
    expect((await quick.GET('/v1/meeting-classes')).response.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(capped.seen.map((s) => s.idem)).toEqual([undefined, undefined]); // GET: no key
  });
});
