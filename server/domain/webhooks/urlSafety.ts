import { DomainError } from '../errors';
import { checkOutboundUrl, OutboundRefusedError, type OutboundOptions } from '../outbound/guard';

/**
 * Webhook URLs (docs/webhooks.md "Which URLs"): only http(s), no credentials, and the target
 * through the outbound guard (server/domain/outbound/guard.ts; docs/reliability.md "Outbound
 * requests"): a host that is, or resolves to, a private, loopback, link-local or reserved
 * address is refused unless OUTBOUND_ALLOW_PRIVATE allows it. Checked at registration here and
 * again on every delivery, where the connection uses the address checked.
 */
function refused(message: string, reason: string): DomainError {
  return new DomainError('WEBHOOK_URL_REFUSED', message, { reason, fields: [{ field: 'url', message }] });
}

/** Parse and check the form of a webhook URL (scheme, no credentials). */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('Not a URL', 'INVALID_URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused('Only http and https URLs', 'SCHEME_NOT_ALLOWED');
  if (url.username || url.password) throw refused('Credentials in the URL are not accepted (verify the signature instead)', 'CREDENTIALS_IN_URL');
  return url;
}

/** Refuse a URL the outbound guard would refuse (its reason and message, which names the setting). */
export async function assertPublicTarget(raw: string, allowPrivate: boolean, opts: Omit<OutboundOptions, 'allowPrivate'> = {}): Promise<URL> {
  const url = parseWebhookUrl(raw);
  try {
    return await checkOutboundUrl(url, { ...opts, allowPrivate });
  } catch (err) {
    if (err instanceof OutboundRefusedError) throw refused(err.message.replace(/^refused: /, 'The URL is refused: '), err.reason);
    throw err;
  }
}
