import { context, isSpanContextValid, propagation, trace, TraceFlags, type Attributes, type Context, type SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler, type SamplingResult, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { getConfig } from '@/server/config';
import { enableTracing, pageSpans } from './tracing';

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
/** Next.js's static files, the health checks and the metrics scrape: no trace for them. */
const STATIC_FILES = /^\/(?:_next\/|favicon\.ico|icon\.svg|api\/health(?:[/?]|$)|metrics(?:[/?]|$))/;
/** Next.js span types never recorded: a fetch span is named by its full URL. */
const NEXT_DROPPED = new Set(['AppRender.fetch']);

/**
 * The head sampler named by OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (the OpenTelemetry
 * names; docs/operations.md "Traces"): `parentbased_always_on` by default. An unknown name is
 * refused at start rather than silently tracing everything.
 */
export function configuredSampler(name: string, arg: string | undefined): Sampler {
  const ratio = () => {
    const r = arg === undefined ? 1 : Number(arg);
    if (!Number.isFinite(r) || r < 0 || r > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got ${arg}`);
    return new TraceIdRatioBasedSampler(r);
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      throw new Error(`OTEL_TRACES_SAMPLER ${name} is not supported (docs/operations.md "Traces")`);
  }
}

/**
 * Which spans are recorded: the service's own by the configured head sampler (`ours`); of
 * Next.js's, the request span of a page by the same sampler (its inner spans follow it), none
 * for the paths with the service's own request span, its fetch spans never.
 */
export class ServiceSampler implements Sampler {
  constructor(private readonly ours: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {}

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
    return page ? this.ours.shouldSample(ctx, traceId, name, kind, attributes, links) : { decision: SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `ServiceSampler{${this.ours.toString()}}`;
  }
}

/**
 * Takes the raw request target and URL off Next.js's spans as they start (a page path such as
 * /status/<token> carries a token). A page's request span gets `request_id`, the trace id until
 * proxy.ts records the answer's X-Request-Id (the client's, when it sent one), and is listed
 * while it runs (tracing.ts pageSpans) so proxy.ts can find it.
 */
export const scrubNextSpans: SpanProcessor = {
  onStart(span) {
    const attrs = (span as unknown as { attributes: Attributes }).attributes;
    const type = attrs['next.span_type'];
    if (type === undefined) return;
    delete attrs['http.target'];
    delete attrs['http.url'];
    if (type === 'BaseServer.handleRequest') {
      // Next.js nests a second request span (named by the route) in the first: it takes the first's request id.
      const { traceId } = span.spanContext();
      const outer = pageSpans().get(traceId);
      span.setAttribute('request_id', outer ? String((outer as unknown as { attributes: Attributes }).attributes.request_id ?? traceId) : traceId);
      if (!outer) pageSpans().set(traceId, span);
    }
  },
  onEnd(span) {
    const { traceId } = span.spanContext();
    if (span.attributes['next.span_type'] === 'BaseServer.handleRequest' && (pageSpans().get(traceId) as unknown) === span) pageSpans().delete(traceId);
  },
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
  /** The head sampler of the service's spans (configuredSampler); ParentBased(AlwaysOn) when unset. */
  sampler?: Sampler;
};

/** Start the SDK and switch the service's spans on. Idempotent. */
export function startTracing(opts: TracingOptions): void {
  if (sdk) return;
  const exporter = opts.exporter ?? new OTLPTraceExporter({ url: `${opts.endpoint!.replace(/\/+$/, '')}/v1/traces` });
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }),
    autoDetectResources: false,
    sampler: new ServiceSampler(opts.sampler),
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
  const { otelEndpoint, otelServiceName, otelSampler, otelSamplerArg } = getConfig();
  if (!otelEndpoint) return false;
  startTracing({ endpoint: otelEndpoint, serviceName: otelServiceName, sampler: configuredSampler(otelSampler, otelSamplerArg) });
  return true;
}

/** Export what is buffered now (tests). */
export async function flushTracing(): Promise<void> {
  const provider = trace.getTracerProvider() as { forceFlush?: () => Promise<void>; getDelegate?: () => { forceFlush?: () => Promise<void> } };
  const p = provider.getDelegate?.() ?? provider;
  await p.forceFlush?.();
}
