import { getConfig } from '@/server/config';
import { rateLimitHeaders, type RateLimitResult } from '@/server/rateLimit';
import { clientIpOf } from '@/server/request';
import { applyRateLimits } from '../limits';

/**
 * The limits of a page a requester opens by a token in its URL (docs/architecture.md, "The
 * request path of a REST call", step 3): the global per-IP budget, then, for a token that
 * names something (`resolve` answers its budget key, e.g. `proposal:<id>`), the same
 * per-token budget as the token's REST operations. A token over 128 characters names nothing.
 */
export async function tokenPageLimits(req: Request, token: string, resolve: (token: string) => Promise<string | null>): Promise<{ limit: RateLimitResult; headers: Record<string, string> }> {
  const limit = await applyRateLimits({
    kind: 'ip',
    clientIp: clientIpOf(req, getConfig().trustProxy),
    policy: 'publicProposalToken',
    identify: async () => (token.length > 128 ? null : resolve(token)),
  });
  return { limit, headers: rateLimitHeaders(limit, Date.now()) };
}
