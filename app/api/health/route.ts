import { checkHealth } from '@/server/health';

// Never prerendered or cached: every GET checks the database and the rate limiter now.
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** GET /api/health: 200 when the database and the rate limiter answer, 503 otherwise. */
export async function GET(): Promise<Response> {
  const report = await checkHealth();
  return Response.json(report, {
    status: report.status === 'ok' ? 200 : 503,
    headers: { 'cache-control': 'no-store' },
  });
}
