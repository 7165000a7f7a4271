import { expect, test } from './test';
import { startOtlpReceiver, traceOf, type OtlpReceiver } from '../tests/helpers/otlpReceiver';
import { bootstrapKey } from './bootstrapKey';
import { databaseUrl } from './servers';
import { freePort, ServerProcess } from './reliability/serverProcess';

/**
 * Traces from the production server (docs/operations.md "Traces"): scripts/serve.mjs started
 * with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback OTLP/HTTP receiver. Proves that
 * instrumentation.ts starts the SDK under the real server, that every /v1 request gets one
 * SERVER span named by its route template (the trace's root: Next.js's own spans for the API
 * paths are not recorded) with the statements under it, that the answer's X-Request-Id is the
 * trace id, and that page spans (Next.js's, named by the page's route) carry no raw path and the
 * answer's X-Request-Id (the trace id) as request_id.
 * PostgreSQL only: a second server process cannot open the run's embedded database.
 */
test.describe('traces from the production server', () => {
  test.skip(!databaseUrl, 'needs E2E_DATABASE_URL (a second server process on the shared database)');
  test.setTimeout(180_000);

  let otlp: OtlpReceiver;
  let server: ServerProcess;
  test.beforeAll(async () => {
    otlp = await startOtlpReceiver();
    const port = await freePort();
    server = new ServerProcess(port, {
      PORT: String(port),
      HOST: '127.0.0.1',
      NEXT_TELEMETRY_DISABLED: '1',
      TRUST_PROXY: '',
      PUBLIC_BASE_URL: '',
      UPSTASH_REDIS_REST_URL: '',
      UPSTASH_REDIS_REST_TOKEN: '',
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl!,
      DB_DRIVER: '',
      PGLITE_DIR: '',
      REDIS_URL: process.env.E2E_REDIS_URL ?? '',
      SMTP_URL: '',
      CALENDAR_SYNC_INTERVAL_SECONDS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: 'e2e-tracing',
      // The SDK's own batch delay setting, so spans arrive within the test's patience.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await server.start();
  });
  test.afterAll(async () => {
    await server?.kill9();
    await otlp?.close();
  });

  test('a /v1 booking: one SERVER span named by its route template, the trace id as request id, statements under it', async () => {
    const { api_key: key } = await bootstrapKey(`trace-${Date.now()}`);
    const v1 = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const email = `trace.${Date.now()}@example.com`;
    expect((await v1('POST', '/v1/owners', { email, time_zone: 'UTC' })).status).toBe(201);
    const all = [{ start: '00:00', end: '24:00' }];
    const hours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, all]));
    expect((await v1('PUT', '/v1/schedule-rules', { owner_email: email, working_hours: hours, hard_blocks: [], max_daily_meeting_hours: null })).status).toBe(200);
    expect([201, 409]).toContain((await v1('POST', '/v1/meeting-classes', { name: 'internal', priority: 30 })).status);
    const start = new Date(Date.now() + 7 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    const slot = { owner_email: email, meeting_class: 'internal', start: start.toISOString(), end: new Date(start.getTime() + 30 * 60_000).toISOString() };

    const booked = await v1('POST', '/v1/bookings', slot, { 'idempotency-key': `trace-e2e-${Date.now()}` });
    expect(booked.status).toBe(201);
    const traceId = booked.headers.get('x-request-id')!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const refused = await v1('POST', '/v1/bookings', slot, { 'x-request-id': 'e2e-trace-refused' });
    expect(refused.status).toBe(409);

    await otlp.waitFor((spans) => spans.some((s) => s.traceId === traceId && s.name === 'claim.commit') && spans.some((s) => s.attributes.request_id === 'e2e-trace-refused'));
    const t = traceOf(otlp.spans, traceId);
    const servers = t.spans.filter((s) => s.kind === 2);
    expect(servers.map((s) => s.name)).toEqual(['POST /v1/bookings']);
    const [root] = servers;
    expect(root.parentSpanId).toBe('');
    expect(root.service).toBe('e2e-tracing');
    expect(root.attributes).toMatchObject({ 'http.route': '/v1/bookings', 'http.response.status_code': 201, request_id: traceId, outcome: 'accepted' });
    // Every span of the trace is ours and hangs off the request span (no span of Next.js's in between).
    for (const s of t.spans) expect(t.descends(s, root), s.name).toBe(true);
    expect(t.spans.some((s) => s.attributes['next.span_type'] !== undefined)).toBe(false);
    for (const name of ['claim.queue_wait', 'claim.transaction', 'claim.lock_wait', 'claim.arbitration', 'claim.commit']) expect(t.named(name).length, name).toBe(1);
    expect(t.spans.filter((s) => s.attributes['db.system.name'] === 'postgresql').length).toBeGreaterThan(3);

    const refusal = otlp.spans.find((s) => s.attributes.request_id === 'e2e-trace-refused')!;
    expect(refusal).toMatchObject({ name: 'POST /v1/bookings', kind: 2 });
    expect(refusal.attributes).toMatchObject({ outcome: 'refused', 'error.code': 'ARBITRATION_REJECTED' });
    expect(String(refusal.attributes.reason)).toMatch(/^(NO_CAPACITY|COUNTER_PROPOSED)$/);
    // No email address in any span.
    expect(JSON.stringify(otlp.spans)).not.toContain(email);
  });

  test('a page: Next.js names its span by the route, and no raw path or token is recorded', async () => {
    const token = `pt_${'x'.repeat(40)}`;
    const page = await fetch(`${server.url}/status/${token}?secret=abc123`);
    expect(page.status).toBeLessThan(500);
    const isPage = (s: { kind: number; attributes: Record<string, unknown> }) => s.kind === 2 && String(s.attributes['http.route'] ?? '').endsWith('/status/[token]');
    await otlp.waitFor((spans) => spans.some(isPage));
    const span = otlp.spans.find(isPage)!;
    expect(span.name).toMatch(/^GET \/.*status\/\[token\]$/);
    // The answer's X-Request-Id is the trace id, recorded on the page's span (proxy.ts).
    const requestId = page.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).toBe(requestId);
    expect(span.attributes.request_id).toBe(requestId);
    const text = JSON.stringify(otlp.spans);
    expect(text).not.toContain(token);
    expect(text).not.toContain('abc123');
  });
});
