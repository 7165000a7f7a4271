import crypto from 'node:crypto';
import { ProviderAuthError, ProviderUnavailableError } from './provider';
import { outboundFetch } from '../outbound/guard';

/** OAuth 2.0 pieces the Google and Microsoft providers share: PKCE (S256) and the token endpoint. */
export type OAuthEndpoint = { url: string; clientId: string; clientSecret: string; name: string };
export type TokenAnswer = { access_token: string; refresh_token?: string; expires_in: number };

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

/** A token request; `invalid_grant` (and 401) is a credential failure, 5xx and network errors are unavailability. */
export async function tokenRequest(endpoint: OAuthEndpoint, params: Record<string, string>, signal?: AbortSignal): Promise<TokenAnswer> {
  let res: Response;
  try {
    res = await outboundFetch({ purpose: 'oauth' })(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: endpoint.clientId, client_secret: endpoint.clientSecret, ...params }),
      signal,
    });
  } catch (err) {
    throw new ProviderUnavailableError(`${endpoint.name} token endpoint unreachable: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if ((res.status === 400 && body.error === 'invalid_grant') || res.status === 401) throw new ProviderAuthError(`${endpoint.name} refused the grant (${String(body.error ?? res.status)})`);
  if (!res.ok) throw new ProviderUnavailableError(`${endpoint.name} token endpoint error (HTTP ${res.status})`);
  return body as TokenAnswer;
}
