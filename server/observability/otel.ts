import { context, isSpanContextValid, propagation, trace, TraceFlags, type Attributes, type Context, type SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, SamplingDecision, type Sampler, type SamplingResult, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { getConfig } from '@/server/config';
import { enableTracing } from './tracing';

/**
 * Starts OpenTelemetry tracing (docs/operations.md "Traces"): the Node SDK with one OTLP/HTTP
 * exporter (JSON, to `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`), batched. Traces only: no
 * metrics or logs go through the SDK, and no auto-instrumentation is loaded; the service's own
 * spans (./tracing.ts) are the instrumentation. instrumentation.ts calls startTracing at start
 * when the endpoint is configured; tests call it with their own exporter.
 *
 * Next.js makes spans of its own as soon as a tracer provider is registered. They are kept for
 * pages only (their root span is named by the page's route template), with the raw request
 * target (paths and queries may carry tokens) taken off; for the JSON APIs, tRPC and MCP the
 * service's request span (withServerSpan) is the root and Next's are not recorded.
 */

/** Paths whose requests get the service's own request span (server/http/handler.ts, the tRPC and MCP routes). */
const OWN_REQUEST_SPANS = /^\/(?:v1|public|mcp|api\/trpc)(?:[/?]|$)/;
/** Next.js's static files: no trace for them. */
const STATIC_FILES = /^\/(?:_next\/|favicon\.ico|icon\.svg)/;
/** Next.js span types never recorded: a fetch span is named by its full URL. */
const NEXT_DROPPED = new Set(['AppRender.fetch']);

export class ServiceSampler implements Sampler {
  private readonly ours = new ParentBasedSampler({ root: new AlwaysOnSampler() });

  shouldSample(ctx: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: []): SamplingResult {
    const nextType = attributes['next.span_type'];
    if (nextType === undefined) return this.ours.shouldSample(ctx, traceId, name, kind, attributes, links);
    if (NEXT_DROPPED.has(String(nextType))) return { decision: SamplingDecision.NOT_RECORD };
    const parent = trace.getSpanContext(ctx);
    if (parent && isSpanContextValid(parent)) {
      return { decision: parent.traceFlags & TraceFlags.SAMPLED ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
    }
    const target = String(attributes['http.target'] ?? '/');
    const page = nextType === 'BaseServer.handleRequest' && !OWN_REQUEST_SPANS.test(target) && !STATIC_FILES.test(target);
    return { decision: page ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return 'ServiceSampler';
  }
}

/** Takes the raw request target and URL off Next.js's spans as they start (a page path such as /status/<token> carries a token). */
export const scrubNextSpans: SpanProcessor = {
  onStart(span) {
    const attrs = (span as unknown as { attributes: Attributes }).attributes;
    if (attrs['next.span_type'] === undefined) return;
    delete attrs['http.target'];
    delete attrs['http.url'];
  },
  onEnd() {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

let sdk: NodeSDK | null = null;

export type TracingOptions = {
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
  endpoint?: string;
  serviceName: string;
  /** Instead of the OTLP exporter (tests). */
  exporter?: SpanExporter;
  /** Batch delay (ms); the SDK's default (5 s, or OTEL_BSP_SCHEDULE_DELAY) when unset. */
  scheduledDelayMillis?: number;
};

/** Start the SDK and switch the service's spans on. Idempotent. */
export function startTracing(opts: TracingOptions): void {
  if (sdk) return;
  const exporter = opts.exporter ?? new OTLPTraceExporter({ url: `${opts.endpoint!.replace(/\/+$/, '')}/v1/traces` });
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }),
    autoDetectResources: false,
    sampler: new ServiceSampler(),
    spanProcessors: [scrubNextSpans, new BatchSpanProcessor(exporter, opts.scheduledDelayMillis ? { scheduledDelayMillis: opts.scheduledDelayMillis } : undefined)],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  enableTracing(true);
}

/** Export what is buffered, then stop (shutdown, tests). */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = null;
  enableTracing(false);
  if (!running) return;
  await running.shutdown();
  // Unregister, so a later startTracing (tests) can register again.
  trace.disable();
  context.disable();
  propagation.disable();
}

/** Start tracing when OTEL_EXPORTER_OTLP_ENDPOINT is configured (instrumentation.ts); says whether it did. */
export function startConfiguredTracing(): boolean {
  const { otelEndpoint, otelServiceName } = getConfig();
  if (!otelEndpoint) return false;
  startTracing({ endpoint: otelEndpoint, serviceName: otelServiceName });
  return true;
}

/** Export what is buffered now (tests). */
export async function flushTracing(): Promise<void> {
  const provider = trace.getTracerProvider() as { forceFlush?: () => Promise<void>; getDelegate?: () => { forceFlush?: () => Promise<void> } };
  const p = provider.getDelegate?.() ?? provider;
  await p.forceFlush?.();
}
