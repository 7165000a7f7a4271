import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { connectCaldav } from '@/server/domain/calendars/calendarService';
import { enqueueNotification } from '@/server/domain/notificationService';
import { deliverDueWebhooks } from '@/server/domain/webhooks/delivery';
import { configuredSampler, flushTracing, startTracing, stopTracing } from '@/server/observability/otel';
import { tracingEnabled } from '@/server/observability/tracing';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlpReceiver';
import { startRadicale, type TestRadicale } from '../../helpers/radicale';
import { startReceiver } from '../webhooks/receiver';
import { call, everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * Acceptance of issue 26 item 2 (docs/operations.md "Traces"): with the SDK exporting OTLP/HTTP
 * JSON to a loopback receiver, a booking, a refused booking, a webhook delivery and a CalDAV
 * sync produce the documented spans, each linked to its parent, with route, outcome and reason.
 * The route handlers run in process (tests/helpers/app.ts); e2e/tracing.spec.ts proves the
 * request span over real HTTP on the production server.
 */
const SERVER = 2;
const CLIENT = 3;

let otlp: OtlpReceiver;
let admin: TestCustomer;
let owner: string;
let radicale: TestRadicale;
const day = nextWeekday('wed', 'UTC');

allowLoopbackOutbound();
beforeAll(async () => {
  otlp = await startOtlpReceiver();
  startTracing({ endpoint: otlp.url, serviceName: 'tracing-test', scheduledDelayMillis: 50 });
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '18:00') });
  radicale = await startRadicale('tracer', 'trace-pass');
});
afterAll(async () => {
  await stopTracing();
  await otlp?.close();
  await radicale?.stop();
});

/** The request span of an answer: its X-Request-Id is the trace id (none was sent). */
async function requestSpan(requestId: string, name: string): Promise<ReceivedSpan> {
  await flushTracing();
  await otlp.waitFor((spans) => spans.some((s) => s.traceId === requestId && s.name === name && s.kind === SERVER));
  return otlp.spans.find((s) => s.traceId === requestId && s.name === name && s.kind === SERVER)!;
}

describe('traces (OTLP/HTTP JSON to a loopback receiver)', () => {
  it('is on, and exports JSON', async () => {
    expect(tracingEnabled()).toBe(true);
    await flushTracing();
    await otlp.waitFor((s) => s.length > 0);
    expect(otlp.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
    expect(otlp.spans.every((s) => s.service === 'tracing-test')).toBe(true);
  });

  let booked: { traceId: string; bookingId: string };
  it('a booking: a server span named by its route template, the decision spans and every statement under it', async () => {
    const res = await call('POST', '/v1/bookings', {
      key: admin.key,
      idempotencyKey: `trace-${Date.now()}`,
      body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') },
    });
    expect(res.status).toBe(201);
    const requestId = res.headers.get('x-request-id')!;
    // No X-Request-Id was sent: the trace id is the request id.
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    const server = await requestSpan(requestId, 'POST /v1/bookings');
    booked = { traceId: requestId, bookingId: res.body.booking_id };
    expect(server.parentSpanId).toBe('');
    expect(server.attributes).toMatchObject({
      'http.route': '/v1/bookings',
      'http.request.method': 'POST',
      'http.response.status_code': 201,
      request_id: requestId,
      outcome: 'accepted',
      'customer.id': admin.customerId,
      'agent.id': admin.agentId,
    });
    const t = traceOf(otlp.spans, requestId);
    for (const name of ['claim.queue_wait', 'claim.transaction', 'claim.lock_wait', 'claim.arbitration', 'claim.commit']) {
      const [s] = t.named(name);
      expect(s, name).toBeDefined();
      expect(t.descends(s, server), `${name} under the request span`).toBe(true);
    }
    const tx = t.named('claim.transaction')[0];
    expect(tx.attributes).toMatchObject({ outcome: 'accepted' });
    expect(t.parentOf(t.named('claim.lock_wait')[0])?.spanId).toBe(tx.spanId);
    expect(t.parentOf(t.named('claim.commit')[0])?.spanId).toBe(tx.spanId);
    const arbitration = t.named('claim.arbitration')[0];
    expect(arbitration.attributes).toMatchObject({ outcome: 'accepted', 'customer.id': admin.customerId, action: 'booking.create' });
    expect(String(arbitration.attributes['owner.id'])).toMatch(/^[0-9a-f-]{36}$/);
    // Statements: the hot ones (the locked target read) and drizzle's, each a child span with its text and no values.
    const statements = t.spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(3);
    for (const s of statements) {
      expect(s.kind).toBe(CLIENT);
      expect(t.descends(s, server)).toBe(true);
      expect(String(s.attributes['db.query.text'])).not.toContain(owner);
    }
    const lockRead = statements.find((s) => String(s.attributes['db.query.text']).includes('for update of o'));
    expect(lockRead && t.parentOf(lockRead)?.name).toBe('claim.lock_wait');
    // With Redis (the PostgreSQL project), the rate limiter's commands too.
    if (process.env.REDIS_URL) {
      const redis = t.spans.filter((s) => s.attributes['db.system.name'] === 'redis');
      expect(redis.length).toBeGreaterThan(0);
      for (const s of redis) expect(t.descends(s, server)).toBe(true);
    }
    // No email address anywhere in the trace's names or attributes.
    expect(JSON.stringify(t.spans)).not.toContain(owner);
  });

  it('a refused booking: outcome refused and the reason code, on the request span and the decision', async () => {
    const res = await call('POST', '/v1/bookings', {
      key: admin.key,
      headers: { 'x-request-id': 'trace-test-refusal-1' },
      body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') },
    });
    expect(res.status).toBe(409);
    // The client's request id is kept, and recorded on the span.
    expect(res.headers.get('x-request-id')).toBe('trace-test-refusal-1');
    await flushTracing();
    await otlp.waitFor((spans) => spans.some((s) => s.attributes.request_id === 'trace-test-refusal-1'));
    const server = otlp.spans.find((s) => s.attributes.request_id === 'trace-test-refusal-1')!;
    expect(server.name).toBe('POST /v1/bookings');
    expect(server.kind).toBe(SERVER);
    expect(server.attributes).toMatchObject({ 'http.route': '/v1/bookings', 'http.response.status_code': 409, outcome: 'refused', 'error.code': 'ARBITRATION_REJECTED' });
    expect(['NO_CAPACITY', 'COUNTER_PROPOSED']).toContain(server.attributes.reason);
    const t = traceOf(otlp.spans, server.traceId);
    const decisions = [...t.named('claim.arbitration'), ...t.named('claim.transaction')];
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of decisions) {
      expect(t.descends(d, server)).toBe(true);
      expect(d.attributes.outcome).toBe('refused');
    }
    const arbitration = t.named('claim.arbitration')[0] ?? null;
    if (arbitration) expect(arbitration.attributes.reason).toBe(res.body.error.reason);
  });

  it('a webhook delivery: its span, the request to the receiver under it, and the statements recording it', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await call('POST', '/v1/webhooks', { key: admin.key, body: { url: receiver.url, events: ['booking.created'] } });
      expect(hook.status).toBe(201);
      const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('12:00'), end: day.at('12:30') } });
      expect(res.status).toBe(201);
      expect(await deliverDueWebhooks(await getDb(), { allowPrivate: true, retryBaseMs: 60_000, random: () => 0, notifyDisabled: enqueueNotification, customerId: admin.customerId })).toBeGreaterThan(0);
      expect(receiver.received.length).toBeGreaterThan(0);
      await flushTracing();
      await otlp.waitFor((spans) => spans.some((s) => s.name === 'webhook.deliver' && s.attributes.outcome === 'delivered'));
      const deliver = otlp.spans.find((s) => s.name === 'webhook.deliver' && s.attributes.outcome === 'delivered')!;
      expect(deliver.attributes).toMatchObject({ 'webhook.kind': 'booking.created', 'http.response.status_code': 200 });
      const t = traceOf(otlp.spans, deliver.traceId);
      const post = t.named('webhook POST')[0];
      expect(post.kind).toBe(CLIENT);
      expect(t.parentOf(post)?.spanId).toBe(deliver.spanId);
      expect(post.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'http.response.status_code': 200, 'outbound.purpose': 'webhook' });
      // The URL's path is not recorded (a receiver's URL may carry a secret).
      expect(JSON.stringify(t.spans)).not.toContain('/hook');
      expect(t.spans.some((s) => s.attributes['db.system.name'] === 'postgresql' && t.parentOf(s)?.spanId === deliver.spanId)).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('a CalDAV sync: its span with the provider requests and the mirror statements under it', async () => {
    const calOwner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('08:00', '18:00') });
    const { sync } = await connectCaldav(await getDb(), admin.customerId, calOwner, { serverUrl: radicale.url, username: radicale.user, password: 'trace-pass', calendarUrl: radicale.calendarUrl }, new Date());
    expect(sync).toMatchObject({ outcome: 'synced' });
    await flushTracing();
    await otlp.waitFor((spans) => spans.some((s) => s.name === 'calendar.sync' && s.attributes['calendar.provider'] === 'caldav'));
    const syncSpan = otlp.spans.find((s) => s.name === 'calendar.sync' && s.attributes['calendar.provider'] === 'caldav')!;
    expect(syncSpan.attributes.outcome).toBe('synced');
    const t = traceOf(otlp.spans, syncSpan.traceId);
    const requests = t.spans.filter((s) => s.attributes['outbound.purpose'] === 'caldav');
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) {
      expect(r.name).toMatch(/^caldav (PROPFIND|REPORT|GET|OPTIONS)$/);
      expect(r.kind).toBe(CLIENT);
      expect(t.descends(r, syncSpan)).toBe(true);
    }
    expect(t.spans.some((s) => s.attributes['db.system.name'] === 'postgresql' && t.descends(s, syncSpan))).toBe(true);
    // Neither the CalDAV user name, its password nor the owner's address is recorded.
    const text = JSON.stringify(t.spans);
    for (const secret of ['trace-pass', 'tracer', calOwner]) expect(text).not.toContain(secret);
  });

  it('an MCP tool call: the request span named by its method and tool, the REST operation a child of it', async () => {
    const res = await call('POST', '/mcp', {
      key: admin.key,
      headers: { accept: 'application/json, text/event-stream', 'x-request-id': 'trace-test-mcp-1' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_meeting_classes', arguments: {} } },
    });
    expect(res.status).toBe(200);
    await flushTracing();
    await otlp.waitFor((spans) => spans.some((s) => s.name.startsWith('mcp tools/call')));
    const server = otlp.spans.find((s) => s.name.startsWith('mcp tools/call'))!;
    expect(server.kind).toBe(SERVER);
    expect(server.attributes['http.route']).toBe('/mcp');
    const t = traceOf(otlp.spans, server.traceId);
    const rest = t.spans.find((s) => s.attributes['http.route'] === '/v1/meeting-classes');
    expect(rest && t.parentOf(rest)?.spanId).toBe(server.spanId);
  });

  it('off: no span, the request id a fresh id again', async () => {
    await stopTracing();
    expect(tracingEnabled()).toBe(false);
    const before = otlp.spans.length;
    const res = await call('GET', `/v1/bookings/${booked.bookingId}`, { key: admin.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).not.toMatch(/^[0-9a-f]{32}$/);
    await new Promise((r) => setTimeout(r, 200));
    expect(otlp.spans.length).toBe(before);
  });

  it('sampled out (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ratio 0): the trace id is still the request id, no span is exported', async () => {
    startTracing({ endpoint: otlp.url, serviceName: 'tracing-test', scheduledDelayMillis: 50, sampler: configuredSampler('parentbased_traceidratio', '0') });
    try {
      const before = otlp.spans.length;
      const res = await call('GET', `/v1/bookings/${booked.bookingId}`, { key: admin.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
      await flushTracing();
      await new Promise((r) => setTimeout(r, 200));
      expect(otlp.spans.length).toBe(before);
    } finally {
      await stopTracing();
    }
  });
});
