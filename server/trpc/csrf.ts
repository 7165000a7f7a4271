import { requestOrigin } from '@/server/request';

/**
 * The dashboard's tRPC calls are same-origin. A state-changing request that
 * a browser marks cross-site, or whose Origin is not this server, is refused
 * (a cross-site form post must not act with the owner's session cookie).
 */
export function isCrossSiteWrite(req: Request): boolean {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return false;
  const site = req.headers.get('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = req.headers.get('origin');
  if (!origin) return false; // not a browser form/fetch (browsers send Origin on POST)
  try {
    return new URL(origin).host !== new URL(requestOrigin(req)).host;
  } catch {
    return true;
  }
}
