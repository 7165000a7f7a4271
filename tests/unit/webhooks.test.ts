import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from '@/server/domain/webhooks/delivery';
import { signatureHeaders } from '@/server/domain/webhooks/signature';
import { parseWebhookUrl } from '@/server/domain/webhooks/urlSafety';

describe('webhook retry delay (docs/webhooks.md "Retries")', () => {
  it('doubles per attempt from the base, jittered into [0.5, 1) of it, capped at an hour', () => {
    expect(retryDelayMs(1, 5000, () => 0)).toBe(2500);
    expect(retryDelayMs(1, 5000, () => 0.999999)).toBe(5000);
    expect(retryDelayMs(3, 5000, () => 0)).toBe(10_000);
    expect(retryDelayMs(40, 5000, () => 0)).toBe(MAX_RETRY_DELAY_MS / 2);
    for (let a = 1; a < 20; a++) {
      const d = retryDelayMs(a, 1000);
      const exp = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** (a - 1));
      expect(d).toBeGreaterThanOrEqual(exp / 2);
      expect(d).toBeLessThanOrEqual(exp);
    }
  });
});

describe('webhook signature', () => {
  it('is v1=hex HMAC-SHA256 over "<timestamp>.<body>" with the timestamp in seconds', () => {
    const h = signatureHeaders('whsec_x', 'd1', '{"a":1}', new Date(1_700_000_000_999));
    expect(h['webhook-id']).toBe('d1');
    expect(h['webhook-timestamp']).toBe('1700000000');
    expect(h['webhook-signature']).toBe(`v1=${createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex')}`);
  });
});

describe('webhook URL form (the addresses: tests/unit/outbound/guard.test.ts)', () => {
  it('accepts only http(s) without credentials', () => {
    expect(parseWebhookUrl('https://example.com/x').hostname).toBe('example.com');
    expect(() => parseWebhookUrl('file:///etc/passwd')).toThrow('Only http and https');
    expect(() => parseWebhookUrl('https://a:b@example.com/')).toThrow('Credentials');
    expect(() => parseWebhookUrl('nonsense')).toThrow('Not a URL');
  });
});
