import { getRateLimiter, rateLimitHeaders, RATE_LIMITS, type RateLimitResult } from '@/server/rateLimit';
import { rateLimitKeys } from '@/server/rateLimit/keys';
import { DomainError } from '@/server/domain/errors';

export type RateLimitName = keyof typeof RATE_LIMITS;

/**
 * What one request counts against (docs/architecture.md, step 3):
 *
 * - `key`: a per-API-key policy (search, holds, bookings, confirm). The key's
 *   own budget is the tighter limit; the per-IP budget is not charged.
 * - anything else: the global 600/min per client IP first, always (404, 405,
 *   pages and public calls included), then the policy named by `policy`, if
 *   any, for the identifier `identify` resolves. `identify` answers null when
 *   the thing the identifier names does not exist (an unknown token or link):
 *   then only the per-IP budget is charged, so random tokens create no keys
 *   of their own in the rate-limit store.
 *
 * The answer is the decision to report: the denial, or of two passes the one
 * with fewer requests left. The second policy is not charged when the first
 * denied.
 */
export type LimitPlan =
  | { kind: 'key'; policy: RateLimitName; keyId: string }
  | { kind: 'ip'; clientIp: string; policy?: RateLimitName; identify?: () => Promise<string | null> };

export async function applyRateLimits(plan: LimitPlan): Promise<RateLimitResult> {
  const limiter = getRateLimiter();
  if (plan.kind === 'key') return limiter.limit(RATE_LIMITS[plan.policy], rateLimitKeys.apiKey(plan.keyId));
  const perIp = await limiter.limit(RATE_LIMITS.global, rateLimitKeys.ip(plan.clientIp));
  if (!perIp.success || !plan.policy || plan.policy === 'global' || !plan.identify) return perIp;
  const id = await plan.identify();
  if (id === null) return perIp;
  const specific = await limiter.limit(RATE_LIMITS[plan.policy], id);
  return !specific.success || specific.remaining <= perIp.remaining ? specific : perIp;
}

/** Copy the decision's RateLimit-* (and on a denial Retry-After) headers onto `headers`. */
export function setRateLimitHeaders(headers: Headers, r: RateLimitResult): void {
  for (const [k, v] of Object.entries(rateLimitHeaders(r, Date.now()))) headers.set(k, v);
}

/** The refusal of a denied request (429, with Retry-After from the decision's headers). */
export function rateLimited(): DomainError {
  return new DomainError('rate_limited', 'Rate limit exceeded; retry after the number of seconds in Retry-After');
}
