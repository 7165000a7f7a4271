import { notFound } from 'next/navigation';
import { isDomainError } from '@/server/domain/errors';

/**
 * A public page's server-side tRPC call: a not_found (unknown link, type or
 * token, whatever the reason) is the page's 404; a rate limit is a page
 * saying so (`{ limited: true }`); anything else propagates to the error page.
 */
export async function loadOr404<T>(call: () => Promise<T>): Promise<T | { limited: true }> {
  try {
    return await call();
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause ?? err;
    if (isDomainError(cause) && cause.code === 'not_found') notFound();
    if (isDomainError(cause) && cause.code === 'rate_limited') return { limited: true };
    // A malformed address (e.g. longer than any alias) fails input validation: also just not found.
    if ((err as { code?: string }).code === 'BAD_REQUEST' && !isDomainError(cause)) notFound();
    throw err;
  }
}

export function isLimited(v: unknown): v is { limited: true } {
  return typeof v === 'object' && v !== null && 'limited' in v;
}
