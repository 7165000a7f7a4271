import { context, INVALID_SPAN_CONTEXT, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { setStatementTracer } from '@/db/tracing';

/**
 * The service's spans (docs/operations.md "Traces"). Off unless OTEL_EXPORTER_OTLP_ENDPOINT is
 * set (server/observability/otel.ts starts the SDK and calls enableTracing); while off, every
 * helper here is one branch on a module-level boolean and calls its function directly, with
 * NOOP_SPAN where it takes a span.
 *
 *   withSpan(name, attrs, fn)            a child span around fn (sync or async), active inside it;
 *                                        fn's result is returned, a throw or rejection marks it failed
 *   traceRequest(req, name, route, run)  the span of one request (withServerSpan) with the answer's
 *                                        status, outcome and X-Request-Id on it
 *   withServerSpan(name, req, attrs, fn) the span of one request: SERVER kind, continuing a
 *                                        W3C traceparent the client sent; a child when a request
 *                                        span is already running (an MCP tool call's REST operation)
 *   withClientSpan / withChildClientSpan a request to another service (the second only inside a
 *                                        recorded span: Redis)
 *   startSpan(name, attrs)               a span ended by the caller (span.end()), e.g. one that
 *                                        straddles a callback; undefined when off
 *   setSpanAttributes(attrs), renameSpan(name), activeTraceId()   on the active span
 * Database statements get theirs through db/tracing.ts's hook, installed by enableTracing.
 *
 * Attributes never carry secrets, tokens or email addresses: ids, route templates and codes only.
 * Next.js bundles route modules apart: the switch is kept on globalThis as well and read when a
 * copy of this module loads (tracing starts in instrumentation.ts, before any route module loads).
 */

const SHARED = Symbol.for('agent-scheduler.tracing');
const g = globalThis as unknown as { [SHARED]?: boolean };
const TRACER_NAME = 'agent-scheduler';

let on = g[SHARED] === true;
let tracer: Tracer | null = on ? trace.getTracer(TRACER_NAME) : null;

/** A span that records nothing: what helpers hand their function while tracing is off. */
export const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export function tracingEnabled(): boolean {
  return on;
}

/** Called by server/observability/otel.ts once the SDK is registered (and with false when it stops). */
export function enableTracing(value: boolean): void {
  g[SHARED] = value;
  on = value;
  tracer = value ? trace.getTracer(TRACER_NAME) : null;
  setStatementTracer(value ? traceStatement : null);
}

/**
 * Whether the active span is one the sampler dropped (OTEL_TRACES_SAMPLER with a ratio): its
 * children would be dropped too (ParentBased), so they are not made at all and a request left
 * out of the sample costs little more than with tracing off. A root span (none active: the
 * webhook worker, the calendar loop) still goes to the sampler.
 */
function unsampledParent(): boolean {
  const active = trace.getActiveSpan();
  return active !== undefined && !active.isRecording();
}

/** Run `fn` inside a span named `name` (a child of the active span, or a new trace). */
export function withSpan<T>(name: string, attrs: Attributes | undefined, fn: (span: Span) => T): T {
  if (!on || unsampledParent()) return fn(NOOP_SPAN);
  return tracer!.startActiveSpan(name, { attributes: attrs }, (span) => finish(span, fn));
}

/**
 * The span of one request (server/http/handler.ts, the tRPC and MCP routes): SERVER kind,
 * named by its route template or procedure, under the client's `traceparent` when it sent one.
 * Next.js's own spans for these paths are not recorded (otel.ts), so this is the trace's root.
 * When a request span of ours is already active (a REST operation an MCP tool call runs in
 * process), it is a child of it instead.
 */
function withServerSpan<T>(name: string, req: Request, attrs: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!on) return fn(NOOP_SPAN);
  const active = trace.getActiveSpan();
  if (active?.isRecording()) return tracer!.startActiveSpan(name, { attributes: attrs }, (span) => finish(span, fn));
  const parent = propagation.extract(trace.deleteSpan(context.active()), req.headers, HEADERS_GETTER);
  return tracer!.startActiveSpan(name, { kind: SpanKind.SERVER, attributes: attrs }, parent, (span) => finish(span, fn));
}

/** A span the caller ends; undefined while tracing is off. Not made active. */
export function startSpan(name: string, attrs?: Attributes, kind?: SpanKind): Span | undefined {
  if (!on || unsampledParent()) return undefined;
  return tracer!.startSpan(name, { attributes: attrs, kind });
}

/** Run `fn` inside a CLIENT span (a request to another service: SMTP, Redis, a webhook receiver, a calendar provider). */
export function withClientSpan<T>(name: string, attrs: Attributes | undefined, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!on || unsampledParent()) return fn(NOOP_SPAN);
  return tracer!.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: attrs }, (span) => finish(span, fn));
}

/** Like withClientSpan, only inside a recorded span (nothing for a background poll's own statements). */
export function withChildClientSpan<T>(name: string, attrs: Attributes | undefined, fn: () => Promise<T>): Promise<T> {
  if (!on || !trace.getActiveSpan()?.isRecording()) return fn();
  return tracer!.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: attrs }, (span) => finish(span, fn));
}

export function setSpanAttributes(attrs: Attributes): void {
  if (!on) return;
  trace.getActiveSpan()?.setAttributes(attrs);
}

/** Rename the active span, once what names it is known (an MCP request's method and tool, read from its body). */
export function renameSpan(name: string): void {
  if (!on) return;
  trace.getActiveSpan()?.updateName(name);
}

/**
 * A request span for a route outside the REST wrapper (tRPC, MCP, token pages): `name`, the
 * route template, and on the answer its status, request id (when it has one) and outcome.
 */
export function traceRequest(req: Request, name: string, route: string, run: () => Promise<Response>): Promise<Response> {
  if (!on) return run();
  return withServerSpan(name, req, { 'http.request.method': req.method, 'http.route': route }, async (span) => {
    const res = await run();
    const requestId = res.headers.get('x-request-id');
    span.setAttributes({
      'http.response.status_code': res.status,
      outcome: res.status < 400 ? 'accepted' : res.status < 500 ? 'refused' : 'error',
      ...(requestId ? { request_id: requestId } : {}),
    });
    return res;
  });
}

/**
 * The recorded request spans of pages (Next.js's `BaseServer.handleRequest`) by trace id, while
 * they run: otel.ts adds and removes them, proxy.ts (through server/http/requestId.ts) records
 * the answer's request id on the page's span. On globalThis: proxy.ts is bundled apart.
 */
const PAGE_SPANS = Symbol.for('agent-scheduler.page-spans');
export function pageSpans(): Map<string, Span> {
  const shared = globalThis as unknown as { [PAGE_SPANS]?: Map<string, Span> };
  return (shared[PAGE_SPANS] ??= new Map());
}

/** Record `requestId` on the running page's request span (docs/operations.md "Traces"); nothing when off or not recorded. */
export function recordPageRequestId(requestId: string): void {
  if (!on) return;
  const traceId = activeTraceId();
  if (traceId) pageSpans().get(traceId)?.setAttribute('request_id', requestId);
}

/** The trace id of the active span (32 hex digits), or undefined (tracing off, or no span). */
export function activeTraceId(): string | undefined {
  if (!on) return undefined;
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : undefined;
}

/** Mark a span failed by `err` (its name and message, never a stack with data in it). */
export function recordFailure(span: Span, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message.slice(0, 300) });
  const code = (e as { code?: unknown }).code;
  span.setAttribute('error.type', typeof code === 'string' && code ? code : e.name);
}

function finish<T>(span: Span, fn: (span: Span) => T): T {
  let result: T;
  try {
    result = fn(span);
  } catch (err) {
    recordFailure(span, err);
    span.end();
    throw err;
  }
  if (result && typeof (result as { then?: unknown }).then === 'function') {
    return (result as unknown as Promise<unknown>).then(
      (v) => {
        span.end();
        return v;
      },
      (err: unknown) => {
        recordFailure(span, err);
        span.end();
        throw err;
      },
    ) as T;
  }
  span.end();
  return result;
}

const HEADERS_GETTER = {
  keys: (h: Headers) => [...h.keys()],
  get: (h: Headers, key: string) => h.get(key) ?? undefined,
};

/** What a statement's span is made with, per statement text (the drivers send a few hundred distinct texts). */
type StatementSpanShape = { name: string; options: { kind: SpanKind; attributes: Attributes } };
const statementShapes = new Map<string, StatementSpanShape>();
const MAX_STATEMENT_SHAPES = 2000;

/**
 * A statement's text on its span is cut after this many characters (spans stay bounded). The
 * claim path's locked target read, the longest statement, is about 2,300: it must show whole, its
 * `for update` included (docs/operations.md "Traces").
 */
const QUERY_TEXT_MAX = 4_000;

/** Name and attributes of a statement's span: its operation and first table (`SELECT owners`), and its text ($n placeholders, never values). */
export function statementShape(sqlText: string): StatementSpanShape {
  let shape = statementShapes.get(sqlText);
  if (shape) return shape;
  const op = /^\s*(\w+)/.exec(sqlText)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update)\s+"?([a-z_][a-z0-9_]*)"?/i.exec(sqlText)?.[1];
  const attributes: Attributes = { 'db.system.name': 'postgresql', 'db.operation.name': op, 'db.query.text': sqlText.slice(0, QUERY_TEXT_MAX) };
  if (table) attributes['db.collection.name'] = table;
  shape = { name: table ? `${op} ${table}` : op, options: { kind: SpanKind.CLIENT, attributes } };
  // Texts with literals inlined would grow the map without bound: past the cap, shapes are not kept.
  if (statementShapes.size < MAX_STATEMENT_SHAPES) statementShapes.set(sqlText, shape);
  return shape;
}

/**
 * A database statement's span (the hook db/tracing.ts calls for every statement the drivers
 * send): only inside a recorded span, so the background loops' polls make no traces, nor does a
 * request the sampler left out. Its name and attributes are built once per statement text
 * (statementShape).
 */
function traceStatement<T extends PromiseLike<unknown>>(sqlText: string, issue: () => T): T {
  if (!trace.getActiveSpan()?.isRecording()) return issue();
  const shape = statementShape(sqlText);
  const span = tracer!.startSpan(shape.name, shape.options);
  let q: T;
  try {
    q = issue();
  } catch (err) {
    recordFailure(span, err);
    span.end();
    throw err;
  }
  // The base `then`: postgres.js queries are lazy promises whose own `then` would send them now.
  Promise.prototype.then.call(
    q,
    () => span.end(),
    (err: unknown) => {
      recordFailure(span, err);
      span.end();
    },
  );
  return q;
}
