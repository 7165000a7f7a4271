import { checkLive } from '@/server/health';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** GET /api/health/live: 200 while the process answers (docs/operations.md "Health"). */
export function GET(): Response {
  return Response.json(checkLive(), { headers: { 'cache-control': 'no-store' } });
}
