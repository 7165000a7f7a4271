import { checkReady } from '@/server/health';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** GET /api/health/ready: 200 when this instance should get traffic, 503 otherwise (docs/operations.md "Health"). */
export async function GET(): Promise<Response> {
  const report = await checkReady();
  return Response.json(report, { status: report.status === 'ready' ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
