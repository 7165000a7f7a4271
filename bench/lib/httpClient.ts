/**
 * A light HTTP client for the benchmarks that drive the server from the same two cores:
 * node:http over keep-alive connections. `fetch` (undici, through web streams) costs the client
 * about 1 ms of CPU per request here, a fifth of what the server spends on a booking, and that
 * CPU is taken from the server and PostgreSQL (docs/benchmarks/history/2026-11-25-contention.md).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });

export type JsonAnswer = { status: number; body: any; ms: number };

/** Send `body` as JSON (none for GET) and parse the JSON answer; `ms` is the time to the last byte. With `timeoutMs`, no answer by then rejects with code 'BENCH_TIMEOUT'. */
export function requestJson(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: unknown, timeoutMs?: number): Promise<JsonAnswer> {
  const t0 = performance.now();
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) } : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, ms: performance.now() - t0 });
          } catch (err) {
            reject(new Error(`${method} ${path}: ${res.statusCode} answered no JSON: ${text.slice(0, 200)} (${String(err)})`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`), { code: 'BENCH_TIMEOUT' })));
    req.end(payload);
  });
}

export type TextAnswer = { status: number; text: string; ms: number };

/**
 * One request on the given agent (racers each keep their own connection) to the server on
 * 127.0.0.1:`port`, `body` as JSON; never rejects: a network error is status 0 with its message
 * as the text (bench/memory.ts, bench/memory-floor.ts count them).
 */
export function sendText(agent: http.Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<TextAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      { agent, host: '127.0.0.1', port, method, path, headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
        res.on('error', () => resolve({ status: 0, text: '', ms: performance.now() - t0 }));
      },
    );
    req.on('error', (e) => resolve({ status: 0, text: String(e), ms: performance.now() - t0 }));
    req.end(payload);
  });
}

/** An HTTP receiver on a free loopback port (a bench's webhook endpoint): `onRequest` gets each request with its whole body as text. */
export async function loopbackReceiver(onRequest: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => onRequest(req, body, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
