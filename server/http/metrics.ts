import http from 'node:http';
import { getConfig } from '@/server/config';
import { constantTimeEqual } from '@/server/domain/ids';
import { log } from '@/server/log';
import { installDatabaseGauges } from '@/server/observability/gauges';
import { renderMetrics } from '@/server/observability/metrics';

/**
 * The Prometheus scrape (docs/operations.md "Metrics"). On the service port, GET /metrics
 * answers only with METRICS_TOKEN set and presented as `Authorization: Bearer <token>`
 * (404 without the setting, 401 without or with another token). On METRICS_PORT, a listener
 * of its own serves GET /metrics, without a token unless METRICS_TOKEN is set too.
 */
export async function metricsResponse(req: Request): Promise<Response> {
  const token = getConfig().metricsToken;
  if (!token) return plain(404, 'Not found\n');
  if (!bearerMatches(req.headers.get('authorization'), token)) {
    return plain(401, 'A bearer token (METRICS_TOKEN) is required\n', { 'www-authenticate': 'Bearer realm="metrics"' });
  }
  return scrape();
}

async function scrape(): Promise<Response> {
  installDatabaseGauges();
  const { contentType, text } = await renderMetrics();
  return new Response(text, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });
}

/** Constant-time comparison of the presented bearer token with the configured one. */
export function bearerMatches(header: string | null, token: string): boolean {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) return false;
  return constantTimeEqual(m[1], token);
}

/**
 * The METRICS_PORT listener (started by server/startup.ts). Every process of the service
 * listens; under WEB_CONCURRENCY the processes share the port, so scrape one process per
 * instance instead (docs/operations.md "Several instances").
 */
export function startMetricsServer(port: number): () => Promise<void> {
  const token = getConfig().metricsToken;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const answer = async (): Promise<Response> => {
      if (req.method !== 'GET' || path !== '/metrics') return plain(404, 'Not found\n');
      if (token && !bearerMatches(req.headers.authorization ?? null, token)) return plain(401, 'A bearer token (METRICS_TOKEN) is required\n', { 'www-authenticate': 'Bearer realm="metrics"' });
      return scrape();
    };
    answer()
      .then(async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers));
        res.end(await r.text());
      })
      .catch((err: unknown) => {
        log.error('metrics scrape failed', { err });
        res.writeHead(500).end();
      });
  });
  server.on('error', (err) => log.error('metrics listener failed', { port, err }));
  server.listen(port, () => log.info('metrics listening', { port }));
  server.unref();
  return () => new Promise((resolve) => server.close(() => resolve()));
}
