import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { scrubNextSpans, ServiceSampler } from '@/server/observability/otel';
import { activeTraceId, NOOP_SPAN, startSpan, tracingEnabled, withSpan } from '@/server/observability/tracing';
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
  });

  it("follows the parent for Next.js's inner spans, and never records its fetch spans (named by URL)", () => {
    expect(decide({ 'next.span_type': 'AppRender.getBodyResult' })).toBe(SamplingDecision.NOT_RECORD);
    expect(decide({ 'next.span_type': 'AppRender.getBodyResult' }, sampledParent)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({ 'next.span_type': 'AppRender.getBodyResult' }, unsampledParent)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide({ 'next.span_type': 'AppRender.fetch' }, sampledParent)).toBe(SamplingDecision.NOT_RECORD);
  });
});

describe('scrubNextSpans', () => {
  it("takes the raw target and URL off Next.js's spans, and leaves the service's alone", () => {
    const next = { attributes: { 'next.span_type': 'BaseServer.handleRequest', 'http.target': '/status/pt_secret?x=1', 'http.url': 'http://h/status/pt_secret', 'http.method': 'GET' } };
    scrubNextSpans.onStart(next as never, ROOT_CONTEXT);
    expect(next.attributes).toEqual({ 'next.span_type': 'BaseServer.handleRequest', 'http.method': 'GET' });
    const ours = { attributes: { 'http.target': '/kept' } };
    scrubNextSpans.onStart(ours as never, ROOT_CONTEXT);
    expect(ours.attributes).toEqual({ 'http.target': '/kept' });
  });
});
