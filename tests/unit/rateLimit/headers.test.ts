import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, type RateLimitResult } from '@/server/rateLimit';

const now = 1_900_000_000_000;
const result = (over: Partial<RateLimitResult>): RateLimitResult => ({
  success: true,
  limit: 120,
  remaining: 7,
  reset: now + 42_000,
  backend: 'memory',
  ...over,
});

describe('rateLimitHeaders', () => {
  it('success: limit, remaining and whole seconds to reset; no Retry-After', () => {
    expect(rateLimitHeaders(result({}), now)).toEqual({
      'RateLimit-Limit': '120',
      'RateLimit-Remaining': '7',
      'RateLimit-Reset': '42',
    });
  });

  it('denial: Retry-After is whole seconds until reset, rounded up', () => {
    const h = rateLimitHeaders(result({ success: false, remaining: 0, reset: now + 1_500 }), now);
    expect(h).toEqual({ 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '2', 'Retry-After': '2' });
    expect(rateLimitHeaders(result({ success: false, reset: now + 3_000 }), now)['Retry-After']).toBe('3');
    expect(rateLimitHeaders(result({ success: false, reset: now + 3_001 }), now)['Retry-After']).toBe('4');
  });

  it('Retry-After is at least 1 and RateLimit-Reset never negative', () => {
    expect(rateLimitHeaders(result({ success: false, reset: now + 1 }), now)['Retry-After']).toBe('1');
    const past = rateLimitHeaders(result({ success: false, reset: now - 5_000 }), now);
    expect(past['RateLimit-Reset']).toBe('0');
    expect(past['Retry-After']).toBe('1');
    expect(rateLimitHeaders(result({ success: false, reset: now }), now)['Retry-After']).toBe('1');
  });

  it('clamps a negative remaining to 0', () => {
    expect(rateLimitHeaders(result({ remaining: -3 }), now)['RateLimit-Remaining']).toBe('0');
  });
});
