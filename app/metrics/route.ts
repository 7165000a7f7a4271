import { metricsResponse } from '@/server/http/metrics';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** GET /metrics: Prometheus text with `Authorization: Bearer $METRICS_TOKEN` (docs/operations.md "Metrics"). */
export function GET(req: Request): Promise<Response> {
  return metricsResponse(req);
}
