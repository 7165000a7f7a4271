import { AsyncLocalStorage } from 'node:async_hooks';
import { normalizeEmail } from '@/server/domain/access';
import { getRateLimiter, rateLimitHeaders, RATE_LIMITS } from '@/server/rateLimit';

/**
 * Dashboard sign-in throttle (docs/operations.md "Sign-in throttle"). Every
 * credentials attempt counts, through the same rate-limit backend as the API
 * (Redis when configured): 30 per 15 minutes per client IP, then 10 per 15
 * minutes per account (the email as typed, normalised). Checked before the
 * password is hashed, so a throttled attempt costs no scrypt work; the
 * account budget is charged only when the IP budget admitted the attempt,
 * so one address cannot create keys for unlimited made-up emails.
 */
export const SIGN_IN_THROTTLED = 'TooManySignInAttempts';

export class SignInThrottled extends Error {
  constructor(
    /** RateLimit-* and Retry-After headers of the denial. */
    readonly headers: Record<string, string>,
  ) {
    super(SIGN_IN_THROTTLED); // next-auth puts the message into the error redirect (`?error=TooManySignInAttempts`)
  }
  get retryAfterSeconds(): number {
    return Number(this.headers['Retry-After']);
  }
}

/** Per request: what the credentials check decided, for the route handler to turn into a 429. */
const attempts = new AsyncLocalStorage<{ throttled?: SignInThrottled }>();

export function withSignInAttempt<T>(fn: () => Promise<T>): Promise<{ result: T; throttled?: SignInThrottled }> {
  const state: { throttled?: SignInThrottled } = {};
  return attempts.run(state, async () => ({ result: await fn(), throttled: state.throttled }));
}

/** Count one sign-in attempt; throws SignInThrottled when the IP or the account is over its budget. */
export async function throttleSignIn(email: string, clientIp: string): Promise<void> {
  const limiter = getRateLimiter();
  let r = await limiter.limit(RATE_LIMITS.signInIp, `signin-ip:${clientIp}`);
  if (r.success) r = await limiter.limit(RATE_LIMITS.signInAccount, `signin-account:${normalizeEmail(email)}`);
  if (r.success) return;
  const err = new SignInThrottled(rateLimitHeaders(r, Date.now()));
  const state = attempts.getStore();
  if (state) state.throttled = err;
  throw err;
}

/** The client address of a next-auth internal request (scripts/serve.mjs sets X-Forwarded-For). */
export function clientIpOfHeaders(headers: Record<string, unknown> | undefined): string {
  const xff = headers?.['x-forwarded-for'];
  const first = (Array.isArray(xff) ? xff[0] : typeof xff === 'string' ? xff : '').split(',')[0]?.trim();
  return first || 'unknown';
}
