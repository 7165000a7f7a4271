import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { configuredSampler, scrubNextSpans, ServiceSampler } from '@/server/observability/otel';
import { activeTraceId, NOOP_SPAN, pageSpans, startSpan, statementShape, tracingEnabled, withSpan } from '@/server/observability/tracing';
import { statementTracer } from '@/db/tracing';

/** docs/operations.md "Traces": off by default at no cost, and which of Next.js's spans are kept. */
describe('tracing switch (off)', () => {
  it('is off without the SDK: withSpan runs its function directly, with the no-op span', () => {
    expect(tracingEnabled()).toBe(false);
    expect(statementTracer).toBeNull();
    let seen: unknown;
    const out = withSpan('x', { a: 1 }, (span) => {
      seen = span;
      return 42;
    });
    expect(out).toBe(42);
    expect(seen).toBe(NOOP_SPAN);
    expect(NOOP_SPAN.isRecording()).toBe(false);
    expect(startSpan('y')).toBeUndefined();
    expect(activeTraceId()).toBeUndefined();
  });
});

describe('ServiceSampler', () => {
  const sampler = new ServiceSampler();
  const decide = (attributes: Record<string, string>, ctx = ROOT_CONTEXT) => sampler.shouldSample(ctx, '0'.repeat(31) + '1', 'GET', SpanKind.SERVER, attributes, []).decision;
  const sampledParent = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED });
  const unsampledParent = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.NONE });

  it("records the service's own spans (ParentBased, always on at the root)", () => {
    expect(decide({})).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({}, sampledParent)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({}, unsampledParent)).toBe(SamplingDecision.NOT_RECORD);
  });

  it("keeps Next.js's request span for pages, not for the paths with the service's own request span", () => {
    const root = (target: string) => decide({ 'next.span_type': 'BaseServer.handleRequest', 'http.target': target });
    expect(root('/dashboard/calendar')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(root('/status/pt_abc')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    for (const p of ['/v1/bookings', '/v1', '/public/schedules/x', '/mcp', '/api/trpc/bookings.list?batch=1']) expect(root(p), p).toBe(SamplingDecision.NOT_RECORD);
    expect(root('/v1x')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(root('/_next/static/chunks/app.js')).toBe(SamplingDecision.NOT_RECORD);
    for (const p of ['/api/health', '/api/health/ready', '/metrics']) expect(root(p), p).toBe(SamplingDecision.NOT_RECORD);
    expect(root('/metricsx')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it("follows the parent for Next.js's inner spans, and never records its fetch spans (named by URL)", () => {
    expect(decide({ 'next.span_type': 'AppRender.getBodyResult' })).toBe(SamplingDecision.NOT_RECORD);
    expect(decide({ 'next.span_type': 'AppRender.getBodyResult' }, sampledParent)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({ 'next.span_type': 'AppRender.getBodyResult' }, unsampledParent)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide({ 'next.span_type': 'AppRender.fetch' }, sampledParent)).toBe(SamplingDecision.NOT_RECORD);
  });
});

describe('configured head sampler (OTEL_TRACES_SAMPLER)', () => {
  const root = (name: string, arg?: string, traceId = '0'.repeat(31) + '1') => new ServiceSampler(configuredSampler(name, arg)).shouldSample(ROOT_CONTEXT, traceId, 'x', SpanKind.SERVER, {}, []).decision;
  const sampledParent = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED });

  it('parentbased_traceidratio keeps about the ratio of new traces, and follows a sampled parent', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => (i * 2654435761).toString(16).padStart(8, '0').repeat(4).slice(0, 32));
    const kept = ids.filter((id) => root('parentbased_traceidratio', '0.1', id) === SamplingDecision.RECORD_AND_SAMPLED).length;
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(300);
    const s = new ServiceSampler(configuredSampler('parentbased_traceidratio', '0'));
    expect(s.shouldSample(sampledParent, 'a'.repeat(32), 'x', SpanKind.INTERNAL, {}, []).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(root('parentbased_traceidratio', '0')).toBe(SamplingDecision.NOT_RECORD);
  });

  it('applies the ratio to the request span of a page too', () => {
    const page = new ServiceSampler(configuredSampler('always_off', undefined)).shouldSample(ROOT_CONTEXT, 'a'.repeat(32), 'GET', SpanKind.SERVER, { 'next.span_type': 'BaseServer.handleRequest', 'http.target': '/status/x' }, []);
    expect(page.decision).toBe(SamplingDecision.NOT_RECORD);
  });

  it('the default records everything; unknown names and bad ratios are refused', () => {
    expect(root('parentbased_always_on')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(() => configuredSampler('jaeger_remote', undefined)).toThrow(/not supported/);
    expect(() => configuredSampler('traceidratio', '1.5')).toThrow(/ratio/);
  });
});

describe('statementShape', () => {
  it('names a statement by operation and first table, built once per text, with no values', () => {
    const text = 'select "id" from "owners" where "customer_id" = $1 and "email" = $2';
    const a = statementShape(text);
    expect(a.name).toBe('SELECT owners');
    expect(a.options.kind).toBe(SpanKind.CLIENT);
    expect(a.options.attributes).toEqual({ 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.collection.name': 'owners', 'db.query.text': text });
    expect(statementShape(text)).toBe(a);
    expect(statementShape('insert into claims (id) values ($1)').name).toBe('INSERT claims');
    expect(statementShape('commit').name).toBe('COMMIT');
  });
});

describe('scrubNextSpans', () => {
  const fake = (attributes: Record<string, unknown>, traceId = 'c'.repeat(32)) => ({
    attributes,
    spanContext: () => ({ traceId, spanId: 'd'.repeat(16), traceFlags: TraceFlags.SAMPLED }),
    setAttribute(k: string, v: unknown) {
      attributes[k] = v;
      return this;
    },
  });

  it("takes the raw target and URL off Next.js's spans, and leaves the service's alone", () => {
    const next = fake({ 'next.span_type': 'AppRender.getBodyResult', 'http.target': '/status/pt_secret?x=1', 'http.url': 'http://h/status/pt_secret', 'http.method': 'GET' });
    scrubNextSpans.onStart(next as never, ROOT_CONTEXT);
    expect(next.attributes).toEqual({ 'next.span_type': 'AppRender.getBodyResult', 'http.method': 'GET' });
    const ours = fake({ 'http.target': '/kept' });
    scrubNextSpans.onStart(ours as never, ROOT_CONTEXT);
    expect(ours.attributes).toEqual({ 'http.target': '/kept' });
  });

  it("gives a page's request span its trace id as request_id and lists it while it runs", () => {
    const page = fake({ 'next.span_type': 'BaseServer.handleRequest', 'http.target': '/status/pt_secret', 'http.method': 'GET' }, 'e'.repeat(32));
    scrubNextSpans.onStart(page as never, ROOT_CONTEXT);
    expect(page.attributes).toEqual({ 'next.span_type': 'BaseServer.handleRequest', 'http.method': 'GET', request_id: 'e'.repeat(32) });
    expect(pageSpans().get('e'.repeat(32))).toBe(page);
    // proxy.ts records the client's id on it; Next.js's nested span (named by the route) takes it over.
    page.attributes.request_id = 'client-id-1';
    const inner = fake({ 'next.span_type': 'BaseServer.handleRequest', 'http.method': 'GET' }, 'e'.repeat(32));
    scrubNextSpans.onStart(inner as never, ROOT_CONTEXT);
    expect(inner.attributes.request_id).toBe('client-id-1');
    scrubNextSpans.onEnd(inner as never);
    expect(pageSpans().get('e'.repeat(32))).toBe(page);
    scrubNextSpans.onEnd(page as never);
    expect(pageSpans().has('e'.repeat(32))).toBe(false);
  });
});
