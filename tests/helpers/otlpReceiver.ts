import http from 'node:http';

/**
 * A loopback OTLP/HTTP trace receiver (docs/operations.md "Traces"): accepts the JSON the
 * service's exporter sends to `/v1/traces` and keeps every span, flattened with its resource's
 * `service.name` and its attributes as plain values.
 */
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  service: string;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
};

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[]; status?: { code?: number; message?: string } };
type OtlpBody = { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] };

function plain(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

export type OtlpReceiver = {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the requests received. */
  contentTypes: string[];
  /** Resolves once `pred` holds for the spans received (polling), or rejects after `ms`. */
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, service, attributes: attributesOf(s.attributes), status: s.status ?? {} });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(pred, ms = 15_000) {
      const until = Date.now() + ms;
      while (!pred(spans)) {
        if (Date.now() > until) throw new Error(`spans not received in ${ms} ms; have: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The spans of one trace, and helpers to walk it. */
export function traceOf(spans: ReceivedSpan[], traceId: string) {
  const mine = spans.filter((s) => s.traceId === traceId);
  const byId = new Map(mine.map((s) => [s.spanId, s]));
  return {
    spans: mine,
    named: (name: string) => mine.filter((s) => s.name === name),
    parentOf: (s: ReceivedSpan) => byId.get(s.parentSpanId),
    /** Whether `s` descends from `ancestor` through recorded spans only (every parent link resolves). */
    descends(s: ReceivedSpan, ancestor: ReceivedSpan): boolean {
      for (let cur: ReceivedSpan | undefined = s; cur; cur = byId.get(cur.parentSpanId)) if (cur.spanId === ancestor.spanId) return true;
      return false;
    },
  };
}
