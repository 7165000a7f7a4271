import { createHmac } from 'node:crypto';

/**
 * The headers of one delivery attempt: `Webhook-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`
 * with the timestamp in Unix seconds, so a receiver can reject replays outside the tolerance
 * and duplicates by Webhook-Id.
 */
export function signatureHeaders(secret: string, deliveryId: string, body: string, now: Date): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const sig = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return { 'webhook-id': deliveryId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1=${sig}` };
}
