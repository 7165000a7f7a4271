import { notFound } from 'next/navigation';
import { readServerError } from '@/components/ui/server-error';

/**
 * A public page's server-side tRPC call: a not_found (unknown link, type or
 * token, whatever the reason) is the page's 404; a rate limit is a page
 * saying so (`{ limited: true }`); anything else propagates to the error page.
 */
export async function loadOr404<T>(call: () => Promise<T>): Promise<T | { limited: true }> {
  try {
    return await call();
  } catch (err) {
    const refusal = readServerError(err);
    if (refusal.domain && refusal.code === 'not_found') notFound();
    if (refusal.domain && refusal.code === 'rate_limited') return { limited: true };
    // A malformed address (e.g. longer than any alias) fails input validation: also just not found.
    if (refusal.trpcCode === 'BAD_REQUEST' && !refusal.domain) notFound();
    throw err;
  }
}

export function isLimited(v: unknown): v is { limited: true } {
  return typeof v === 'object' && v !== null && 'limited' in v;
}
