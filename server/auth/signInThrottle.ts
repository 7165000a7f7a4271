import { getConfig } from '@/server/config';
import { AsyncLocalStorage } from 'node:async_hooks';
import { normalizeEmail } from '@/server/domain/access';
import { getRateLimiter, rateLimitHeaders, RATE_LIMITS, type RateLimitPolicy } from '@/server/rateLimit';
import { rateLimitKeys } from '@/server/rateLimit/keys';

/**
 * Dashboard sign-in throttle (docs/operations.md "Sign-in throttle"). Every
 * sign-in attempt counts, through the same rate-limit backend as the API
 * (Redis when configured): password attempts 30 per 15 minutes per client IP,
 * then 10 per address (the email as typed, normalised); requests for an
 * emailed link 20 per 15 minutes per client IP, then 5 per address.
 * Checked before any password is hashed or mail is queued, and before
 * anything depends on whether the address is an owner's, so a throttled
 * attempt costs nothing and answers the same for owners and strangers; the
 * address budget is charged only when the IP budget admitted the attempt,
 * so one client cannot create keys for unlimited made-up emails.
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

/** Per sign-in request (server/auth/route.ts): the client, what the throttle decided, and work to start once answered. */
type SignInRequest = { clientIp: string; throttled?: SignInThrottled; afterAnswer: (() => Promise<void>)[] };
const requests = new AsyncLocalStorage<SignInRequest>();

/**
 * Run one /api/auth request: the throttle reads the client from it and records a refusal for
 * the route to turn into a 429; work queued with `afterAnswer` starts only once `fn` has
 * produced the answer (and is dropped when the request was throttled).
 */
export async function withSignInAttempt<T>(clientIp: string, fn: () => Promise<T>): Promise<{ result: T; throttled?: SignInThrottled }> {
  const state: SignInRequest = { clientIp, afterAnswer: [] };
  const result = await requests.run(state, fn);
  if (!state.throttled) for (const task of state.afterAnswer) void task();
  return { result, throttled: state.throttled };
}

/** Start `task` after the current sign-in request has been answered (at once outside one). Never awaits it. */
export function afterAnswer(task: () => Promise<void>): void {
  const state = requests.getStore();
  if (state) state.afterAnswer.push(task);
  else void task();
}

/** Count one password attempt; throws SignInThrottled when the IP or the account is over its budget. */
export async function throttleSignIn(email: string, clientIp: string): Promise<void> {
  const ipPolicy = { ...RATE_LIMITS.signInIp, limit: getConfig().signInIpLimit };
  await throttle(ipPolicy, rateLimitKeys.signInIp(clientIp), RATE_LIMITS.signInAccount, rateLimitKeys.signInAccount(normalizeEmail(email)));
}

/** Count one request for an emailed sign-in link (the client from the current request); throws SignInThrottled. */
export async function throttleSignInLink(email: string): Promise<void> {
  const clientIp = requests.getStore()?.clientIp ?? 'unknown';
  await throttle(RATE_LIMITS.signInLinkIp, rateLimitKeys.signInLinkIp(clientIp), RATE_LIMITS.signInLink, rateLimitKeys.signInLink(normalizeEmail(email)));
}

/** The client's budget first, then (only when it admitted the attempt) the address's. */
async function throttle(ipPolicy: RateLimitPolicy, ipKey: string, addressPolicy: RateLimitPolicy, addressKey: string): Promise<void> {
  const limiter = getRateLimiter();
  let r = await limiter.limit(ipPolicy, ipKey);
  if (r.success) r = await limiter.limit(addressPolicy, addressKey);
  if (r.success) return;
  const err = new SignInThrottled(rateLimitHeaders(r, Date.now()));
  const state = requests.getStore();
  if (state) state.throttled = err;
  throw err;
}

/** The client address of a next-auth internal request (scripts/serve.mjs sets X-Forwarded-For). */
export function clientIpOfHeaders(headers: Record<string, unknown> | undefined): string {
  const xff = headers?.['x-forwarded-for'];
  const first = (Array.isArray(xff) ? xff[0] : typeof xff === 'string' ? xff : '').split(',')[0]?.trim();
  return first || 'unknown';
}
